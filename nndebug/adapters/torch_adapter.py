"""The adapter for PyTorch models (``torch.nn.Module``). Only this file imports torch."""
import copy
import random

import numpy as np
import torch

from .base import Adapter, ArrayNamespace

_HOOK_TABLES = ("_forward_hooks", "_forward_pre_hooks", "_backward_hooks", "_backward_pre_hooks",
                "_forward_hooks_with_kwargs", "_forward_pre_hooks_with_kwargs",
                "_forward_hooks_always_called", "_state_dict_hooks", "_load_state_dict_pre_hooks")

_NUMPY_TO_TORCH = {np.dtype(np.float16): torch.float16, np.dtype(np.float32): torch.float32,
                   np.dtype(np.float64): torch.float64}


class TorchNamespace(ArrayNamespace):
    """ArrayNamespace on torch tensors: reductions run on the tensor's own device."""

    def asfloat(self, x): return x if x.is_floating_point() else x.float()
    def abs(self, x): return x.abs()
    def sqrt(self, x): return x.sqrt()
    def mean(self, x, axis=None): return x.mean() if axis is None else x.mean(dim=axis)
    def sum(self, x, axis=None): return x.sum() if axis is None else x.sum(dim=axis)
    def std(self, x, axis=None):
        return x.std(correction=0) if axis is None else x.std(dim=axis, correction=0)
    def amax(self, x, axis=None): return x.amax() if axis is None else x.amax(dim=axis)
    def amin(self, x, axis=None): return x.amin() if axis is None else x.amin(dim=axis)
    def all(self, x, axis=None): return x.all() if axis is None else x.all(dim=axis)
    def any(self, x, axis=None): return x.any() if axis is None else x.any(dim=axis)
    def isfinite(self, x): return torch.isfinite(x)
    def where(self, cond, a, b): return torch.where(cond, a, b)
    def reshape(self, x, shape): return x.reshape(shape)
    def stack(self, xs): return torch.stack(list(xs))
    def concat(self, xs): return torch.cat([x.reshape(-1) for x in xs])
    def scalar(self, value, like): return torch.as_tensor(value, dtype=like.dtype, device=like.device)


class TorchAdapter(Adapter):
    framework = "torch"
    _xp = TorchNamespace()

    # --- structure ---------------------------------------------------------
    def named_modules(self):
        return list(self.model.named_modules())

    def named_parameters(self):
        return list(self.model.named_parameters())

    def named_children(self, module):
        return list(module.named_children())

    def _params_of(self, module):
        return list(module.named_parameters())

    def own_parameters(self, module):
        return list(module.named_parameters(recurse=False))

    def requires_grad(self, parameter):
        return bool(parameter.requires_grad)

    # --- arrays --------------------------------------------------------------
    def is_tensor(self, value):
        return isinstance(value, torch.Tensor)

    def to_numpy(self, value):
        if isinstance(value, torch.Tensor):
            return value.detach().cpu().numpy().copy()
        return np.array(value, copy=True)

    def _device(self):
        for p in self.model.parameters():
            return p.device
        return torch.device("cpu")

    def from_numpy(self, array, like=None):
        device = like.device if like is not None else self._device()
        return torch.from_numpy(np.ascontiguousarray(array)).to(device)

    def set_parameter(self, parameter, array):
        with torch.no_grad():
            parameter.copy_(torch.as_tensor(array, dtype=parameter.dtype))

    def float_dtype(self):
        for p in self.model.parameters():
            if p.is_floating_point():
                return np.dtype(str(p.dtype).replace("torch.", ""))
        return np.dtype(np.float32)

    def _prepare_one(self, value, dtype):
        if isinstance(value, torch.Tensor):
            if value.is_floating_point():
                return value.to(_NUMPY_TO_TORCH.get(np.dtype(dtype), value.dtype))
            return value
        if value is None or isinstance(value, (str, bytes)):
            return value
        array = np.asarray(value)
        if array.dtype.kind == "f":
            array = array.astype(dtype)
        elif array.dtype.kind not in "iub":
            raise TypeError(f"cannot turn data of dtype {array.dtype} into a torch tensor; "
                            "expected float, integer or boolean arrays")
        return self.from_numpy(array)

    # --- evaluation -------------------------------------------------------------
    def _float_leaves(self, inputs):
        if isinstance(inputs, torch.Tensor):
            return [inputs] if inputs.is_floating_point() else []
        if isinstance(inputs, (tuple, list)):
            return [t for v in inputs for t in self._float_leaves(v)]
        if isinstance(inputs, dict):
            return [t for v in inputs.values() for t in self._float_leaves(v)]
        return []

    def _scalar_loss(self, loss):
        if not isinstance(loss, torch.Tensor):
            raise TypeError(f"loss_fn must return a torch tensor, got {type(loss).__name__}")
        if loss.numel() != 1:
            raise ValueError(f"loss_fn must return a scalar loss, got shape {tuple(loss.shape)}; "
                             "reduce it (e.g. .mean()) or use reduction='mean'")
        return loss.reshape(())

    def loss_and_grads(self, inputs, targets, loss_fn, *, wrt_inputs=False):
        inputs, targets = self.prepare(inputs), self.prepare(targets)
        input_leaves = []
        if wrt_inputs:
            inputs = _detached_copy(inputs)
            input_leaves = self._float_leaves(inputs)
            for t in input_leaves:
                t.requires_grad_(True)
        names, params = zip(*self.named_parameters()) if self.named_parameters() else ((), ())
        trainable = [p for p in params if p.requires_grad]
        with torch.enable_grad():
            loss = self._scalar_loss(loss_fn(self.call_model(self.model, inputs), targets))
            wrt = trainable + input_leaves
            grads = torch.autograd.grad(loss, wrt, allow_unused=True) if wrt and loss.requires_grad \
                else [None] * len(wrt)
        by_param = {id(p): g for p, g in zip(trainable, grads[:len(trainable)])}
        param_grads = {}
        for name, p in zip(names, params):
            if p.requires_grad:
                g = by_param[id(p)]
                param_grads[name] = np.zeros(tuple(p.shape), self.to_numpy(p).dtype) if g is None \
                    else self.to_numpy(g)
        input_grads = [None if g is None else self.to_numpy(g) for g in grads[len(trainable):]]
        return float(loss.detach().cpu()), param_grads, input_grads

    def loss_value(self, inputs, targets, loss_fn):
        with torch.no_grad():
            loss = self._scalar_loss(loss_fn(self.call_model(self.model, self.prepare(inputs)),
                                             self.prepare(targets)))
        return float(loss.cpu())

    # --- copies and state -------------------------------------------------------------
    def private_copy(self, dtype=np.float64):
        clone = copy.deepcopy(self.model)
        target = _NUMPY_TO_TORCH[np.dtype(dtype)]
        with torch.no_grad():
            for module in clone.modules():
                for table in _HOOK_TABLES:
                    if isinstance(getattr(module, table, None), dict):
                        getattr(module, table).clear()
                for p in module.parameters(recurse=False):
                    p.grad = None
                    if p.is_floating_point():
                        p.data = p.data.to(target)
                    if getattr(p, "_backward_hooks", None):
                        p._backward_hooks.clear()
                for name, b in module.named_buffers(recurse=False):
                    if b is not None and b.is_floating_point():
                        setattr(module, name, b.to(target))
        return TorchAdapter(clone)

    def capture_state(self):
        return {
            "params": [(p, p.detach().clone(), p.dtype, p.requires_grad,
                        None if p.grad is None else p.grad.detach().clone())
                       for p in self.model.parameters()],
            "buffers": [(m, n, b, None if b is None else b.detach().clone())
                        for m in self.model.modules() for n, b in m.named_buffers(recurse=False)],
            "training": [(m, m.training) for m in self.model.modules()],
            "hooks": {id(m): {t: dict(getattr(m, t)) for t in _HOOK_TABLES
                              if isinstance(getattr(m, t, None), dict)} for m in self.model.modules()},
            "tensor_hooks": [(p, dict(p._backward_hooks) if p._backward_hooks else None)
                             for p in self.model.parameters()],
            "rng": self.get_rng_state(),
        }

    def restore_state(self, state):
        with torch.no_grad():
            for p, value, dtype, flag, grad in state["params"]:
                if p.dtype != dtype:
                    p.data = p.data.to(dtype)
                p.copy_(value)
                p.requires_grad_(flag)
                p.grad = None if grad is None else grad.clone()
            for module, name, current, value in state["buffers"]:
                if value is None:
                    continue
                buffer = getattr(module, name)
                if buffer is not current or buffer.dtype != value.dtype:
                    setattr(module, name, current)
                current.copy_(value)
        for module, flag in state["training"]:
            module.training = flag
        for module in self.model.modules():
            saved = state["hooks"].get(id(module), {})
            for table, entries in saved.items():
                live = getattr(module, table)
                for key in [k for k in live if k not in entries]:
                    del live[key]
        for p, hooks in state["tensor_hooks"]:
            if p._backward_hooks is not None:
                for key in [k for k in p._backward_hooks if not hooks or k not in hooks]:
                    del p._backward_hooks[key]
        self.set_rng_state(state["rng"])

    def state_differences(self, state):
        problems = []
        names = {id(p): n for n, p in self.model.named_parameters()}
        for p, value, dtype, flag, grad in state["params"]:
            name = names.get(id(p), "?")
            if p.dtype != dtype:
                problems.append(f"parameter {name}: dtype {dtype} -> {p.dtype}")
            elif not torch.equal(p.detach(), value):
                problems.append(f"parameter {name}: values changed")
            if p.requires_grad != flag:
                problems.append(f"parameter {name}: requires_grad {flag} -> {p.requires_grad}")
            if (grad is None) != (p.grad is None) or (grad is not None and not torch.equal(grad, p.grad)):
                problems.append(f"parameter {name}: .grad changed")
        for module, name, current, value in state["buffers"]:
            buffer = getattr(module, name)
            if value is not None and (buffer.dtype != value.dtype or not torch.equal(buffer, value)):
                problems.append(f"buffer {name}: changed")
        for module, flag in state["training"]:
            if module.training != flag:
                problems.append(f"{type(module).__name__}: training {flag} -> {module.training}")
        for module in self.model.modules():
            for table, entries in state["hooks"].get(id(module), {}).items():
                if set(getattr(module, table)) != set(entries):
                    problems.append(f"{type(module).__name__}.{table}: hooks changed")
        if not _rng_equal(self.get_rng_state(), state["rng"]):
            problems.append("RNG state changed")
        return problems

    # --- randomness ---------------------------------------------------------------
    def get_rng_state(self):
        state = {"torch": torch.get_rng_state(), "numpy": np.random.get_state(),
                 "python": random.getstate()}
        if torch.cuda.is_available() and torch.cuda.is_initialized():
            state["cuda"] = torch.cuda.get_rng_state_all()
        return state

    def set_rng_state(self, state):
        torch.set_rng_state(state["torch"])
        np.random.set_state(state["numpy"])
        random.setstate(state["python"])
        if "cuda" in state:
            torch.cuda.set_rng_state_all(state["cuda"])

    def seed(self, seed):
        torch.manual_seed(seed)
        np.random.seed(seed)
        random.seed(seed)

    # --- hooks -------------------------------------------------------------------
    def add_forward_hook(self, module, fn):
        def hook(mod, inputs, output):
            fn(mod, inputs, output)
        return module.register_forward_hook(hook)

    def add_forward_pre_hook(self, module, fn):
        def hook(mod, inputs):
            fn(mod, inputs)
        return module.register_forward_pre_hook(hook)

    def add_tensor_hook(self, tensor, fn):
        if not isinstance(tensor, torch.Tensor) or not tensor.requires_grad:
            return None

        def hook(grad):
            fn(grad)
        return tensor.register_hook(hook)

    def hook_counts(self):
        counts = {}
        for name, module in self.model.named_modules():
            counts[name] = sum(len(getattr(module, t)) for t in _HOOK_TABLES
                               if isinstance(getattr(module, t, None), dict))
        for name, p in self.model.named_parameters():
            counts["param:" + name] = len(p._backward_hooks or {})
        return counts

    # --- array namespace -----------------------------------------------------------
    def detach(self, tensor):
        return tensor.detach()

    @property
    def xp(self):
        return self._xp

    def to_host(self, tensor):
        return tensor.detach().cpu().numpy()

    # --- optimizers ------------------------------------------------------------------
    def optimizer_parameters(self, optimizer):
        return [p for group in optimizer.param_groups for p in group["params"]]

    def optimizer_state(self, optimizer):
        return copy.deepcopy(optimizer.state_dict())

    def restore_optimizer_state(self, optimizer, state):
        optimizer.load_state_dict(copy.deepcopy(state))


def _detached_copy(value):
    if isinstance(value, torch.Tensor):
        return value.detach().clone()
    if isinstance(value, (tuple, list)):
        return type(value)(_detached_copy(v) for v in value)
    if isinstance(value, dict):
        return {k: _detached_copy(v) for k, v in value.items()}
    return value


def _rng_equal(a, b):
    return (torch.equal(a["torch"], b["torch"]) and a["python"] == b["python"]
            and all(np.array_equal(x, y) if isinstance(x, np.ndarray) else x == y
                    for x, y in zip(a["numpy"], b["numpy"])))
