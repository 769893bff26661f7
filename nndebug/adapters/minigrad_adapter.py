"""The adapter for minigrad models (``minigrad.nn.Module``)."""
import copy
import random

import numpy as np

import minigrad as mg
from minigrad.tensor import Tensor

from .base import Adapter, ArrayNamespace

_HOOK_TABLES = ("_forward_hooks", "_forward_pre_hooks", "_backward_hooks")


class NumpyNamespace(ArrayNamespace):
    """ArrayNamespace on NumPy arrays (minigrad's storage)."""

    def asfloat(self, x): return x if x.dtype.kind == "f" else x.astype(np.float32)
    def abs(self, x): return np.abs(x)
    def sqrt(self, x): return np.sqrt(x)
    def mean(self, x, axis=None): return np.mean(x, axis=axis)
    def sum(self, x, axis=None): return np.sum(x, axis=axis)
    def std(self, x, axis=None): return np.std(x, axis=axis)
    def amax(self, x, axis=None): return np.amax(x, axis=axis)
    def amin(self, x, axis=None): return np.amin(x, axis=axis)
    def all(self, x, axis=None): return np.all(x, axis=axis)
    def any(self, x, axis=None): return np.any(x, axis=axis)
    def isfinite(self, x): return np.isfinite(x)
    def where(self, cond, a, b): return np.where(cond, a, b)
    def reshape(self, x, shape): return np.reshape(x, shape)
    def stack(self, xs): return np.stack([np.asarray(x) for x in xs])
    def concat(self, xs): return np.concatenate([np.reshape(x, -1) for x in xs])
    def scalar(self, value, like): return np.asarray(value, dtype=like.dtype)


class MinigradAdapter(Adapter):
    framework = "minigrad"
    _xp = NumpyNamespace()

    # --- structure ---------------------------------------------------------
    def named_modules(self):
        return list(self.model.named_modules())

    def named_parameters(self):
        return list(self.model.named_parameters())

    def named_children(self, module):
        return list(module.named_children())

    def _params_of(self, module):
        return list(module.named_parameters())

    def requires_grad(self, parameter):
        return bool(parameter.requires_grad)

    # --- arrays --------------------------------------------------------------
    def is_tensor(self, value):
        return isinstance(value, Tensor)

    def to_numpy(self, value):
        if isinstance(value, Tensor):
            return value.data.copy()
        if hasattr(value, "detach") and hasattr(value, "numpy"):  # a torch tensor given by mistake
            return value.detach().cpu().numpy().copy()
        return np.array(value, copy=True)

    def from_numpy(self, array, like=None):
        return mg.tensor(np.array(array), dtype=np.asarray(array).dtype)

    def set_parameter(self, parameter, array):
        parameter.data[...] = np.asarray(array, dtype=parameter.data.dtype)

    def float_dtype(self):
        for _, p in self.named_parameters():
            if p.data.dtype.kind == "f":
                return p.data.dtype
        return np.dtype(np.float32)

    def _prepare_one(self, value, dtype):
        if value is None or isinstance(value, (str, bytes)):
            return value
        if isinstance(value, Tensor):
            if value.dtype.kind == "f" and value.dtype != dtype:
                return mg.tensor(value.data, dtype=dtype)
            return value
        array = self.to_numpy(value)
        if array.dtype.kind == "f":
            return mg.tensor(array, dtype=dtype)
        if array.dtype.kind in "iub":
            return mg.tensor(array)
        raise TypeError(f"cannot turn data of dtype {array.dtype} into a minigrad tensor; "
                        "expected float, integer or boolean arrays")

    # --- evaluation -------------------------------------------------------------
    def _scalar_loss(self, loss):
        if not isinstance(loss, Tensor):
            raise TypeError(f"loss_fn must return a minigrad Tensor, got {type(loss).__name__}")
        if loss.data.size != 1:
            raise ValueError(f"loss_fn must return a scalar loss, got shape {loss.shape}; "
                             "reduce it (e.g. .mean()) or use reduction='mean'")
        return loss

    def _float_leaves(self, inputs):
        if isinstance(inputs, Tensor):
            return [inputs] if inputs.dtype.kind == "f" else []
        if isinstance(inputs, (tuple, list)):
            return [t for v in inputs for t in self._float_leaves(v)]
        if isinstance(inputs, dict):
            return [t for v in inputs.values() for t in self._float_leaves(v)]
        return []

    def loss_and_grads(self, inputs, targets, loss_fn, *, wrt_inputs=False):
        inputs, targets = self.prepare(inputs), self.prepare(targets)
        input_leaves = []
        if wrt_inputs:
            inputs = _fresh_copy(inputs)
            input_leaves = self._float_leaves(inputs)
            for t in input_leaves:
                t.requires_grad = True
        params = self.named_parameters()
        saved_grads = [(p, p.grad) for _, p in params]
        try:
            for _, p in params:
                p.grad = None
            with mg.enable_grad():
                loss = self._scalar_loss(loss_fn(self.call_model(self.model, inputs), targets))
            if loss.requires_grad:
                loss.backward()
            grads = {name: (np.zeros_like(p.data) if p.grad is None else p.grad.copy())
                     for name, p in params if p.requires_grad}
            input_grads = [None if t.grad is None else t.grad.copy() for t in input_leaves]
        finally:
            for p, g in saved_grads:
                p.grad = g
        return float(loss.data), grads, input_grads

    def loss_value(self, inputs, targets, loss_fn):
        with mg.no_grad():
            loss = self._scalar_loss(loss_fn(self.call_model(self.model, self.prepare(inputs)),
                                             self.prepare(targets)))
        return float(loss.data)

    # --- copies and state -------------------------------------------------------------
    def private_copy(self, dtype=np.float64):
        clone = copy.deepcopy(self.model)
        dtype = np.dtype(dtype)
        for module in clone.modules():
            for table in _HOOK_TABLES:
                if isinstance(getattr(module, table, None), dict):
                    getattr(module, table).clear()
        for _, p in clone.named_parameters():
            p.grad = None
            p._hooks = {}
            if p.data.dtype.kind == "f":
                p.data = p.data.astype(dtype)
        for module in clone.modules():
            for name, buf in list(getattr(module, "_buffers", {}).items()):
                if isinstance(buf, np.ndarray) and buf.dtype.kind == "f":
                    module._buffers[name] = buf.astype(dtype)
        return MinigradAdapter(clone)

    def _buffer_slots(self):
        slots = []
        for module in self.model.modules():
            for name, buf in getattr(module, "_buffers", {}).items():
                if buf is not None:
                    slots.append((module, name, buf, np.array(buf, copy=True)))
        return slots

    def capture_state(self):
        return {
            "params": [(p, p.data, p.data.copy(), p.requires_grad,
                        None if p.grad is None else p.grad.copy(), dict(p._hooks))
                       for _, p in self.named_parameters()],
            "buffers": self._buffer_slots(),
            "training": [(m, m.training) for m in self.model.modules()],
            "hooks": {id(m): {t: dict(getattr(m, t)) for t in _HOOK_TABLES
                              if isinstance(getattr(m, t, None), dict)} for m in self.model.modules()},
            "rng": self.get_rng_state(),
        }

    def restore_state(self, state):
        for p, storage, value, flag, grad, hooks in state["params"]:
            storage[...] = value
            p.data = storage
            p.requires_grad = flag
            p.grad = None if grad is None else grad.copy()
            p._hooks = dict(hooks)
        for module, name, storage, value in state["buffers"]:
            storage[...] = value
            module._buffers[name] = storage
        for module, flag in state["training"]:
            module.training = flag
        for module in self.model.modules():
            for table, entries in state["hooks"].get(id(module), {}).items():
                live = getattr(module, table)
                for key in [k for k in live if k not in entries]:
                    del live[key]
        self.set_rng_state(state["rng"])

    def state_differences(self, state):
        problems = []
        names = {id(p): n for n, p in self.named_parameters()}
        for p, storage, value, flag, grad, hooks in state["params"]:
            name = names.get(id(p), "?")
            if p.data.dtype != value.dtype:
                problems.append(f"parameter {name}: dtype {value.dtype} -> {p.data.dtype}")
            elif not np.array_equal(p.data, value):
                problems.append(f"parameter {name}: values changed")
            if p.requires_grad != flag:
                problems.append(f"parameter {name}: requires_grad {flag} -> {p.requires_grad}")
            if (grad is None) != (p.grad is None) or (grad is not None and not np.array_equal(grad, p.grad)):
                problems.append(f"parameter {name}: .grad changed")
            if set(p._hooks) != set(hooks):
                problems.append(f"parameter {name}: tensor hooks changed")
        for module, name, storage, value in state["buffers"]:
            live = module._buffers.get(name)
            if live is None or live.dtype != value.dtype or not np.array_equal(live, value):
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
        return {"minigrad": mg.get_rng_state(), "numpy": np.random.get_state(),
                "python": random.getstate()}

    def set_rng_state(self, state):
        mg.set_rng_state(state["minigrad"])
        np.random.set_state(state["numpy"])
        random.setstate(state["python"])

    def seed(self, seed):
        mg.manual_seed(seed)
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
        if not isinstance(tensor, Tensor) or not tensor.requires_grad:
            return None

        def hook(grad):
            fn(grad)
        return tensor.register_hook(hook)

    def hook_counts(self):
        counts = {}
        for name, module in self.named_modules():
            counts[name] = sum(len(getattr(module, t)) for t in _HOOK_TABLES
                               if isinstance(getattr(module, t, None), dict))
        for name, p in self.named_parameters():
            counts["param:" + name] = len(p._hooks)
        return counts

    # --- array namespace -----------------------------------------------------------
    def detach(self, tensor):
        return tensor.data if isinstance(tensor, Tensor) else np.asarray(tensor)

    @property
    def xp(self):
        return self._xp

    def to_host(self, tensor):
        return np.array(tensor.data if isinstance(tensor, Tensor) else tensor, copy=True)

    # --- optimizers ------------------------------------------------------------------
    def optimizer_parameters(self, optimizer):
        return [p for group in optimizer.param_groups for p in group["params"]]

    def optimizer_state(self, optimizer):
        return copy.deepcopy(optimizer.state_dict())

    def restore_optimizer_state(self, optimizer, state):
        optimizer.load_state_dict(copy.deepcopy(state))


def _fresh_copy(value):
    if isinstance(value, Tensor):
        return mg.tensor(value.data.copy(), dtype=value.dtype)
    if isinstance(value, (tuple, list)):
        return type(value)(_fresh_copy(v) for v in value)
    if isinstance(value, dict):
        return {k: _fresh_copy(v) for k, v in value.items()}
    return value


def _rng_equal(a, b):
    def same(x, y):
        if isinstance(x, dict):
            return x.keys() == y.keys() and all(same(x[k], y[k]) for k in x)
        if isinstance(x, (tuple, list)):
            return len(x) == len(y) and all(same(i, j) for i, j in zip(x, y))
        if isinstance(x, np.ndarray):
            return np.array_equal(x, y)
        return x == y
    return same(a, b)
