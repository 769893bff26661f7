"""The adapter for PyTorch models (``torch.nn.Module``). Only this file imports torch."""
import collections
import contextlib
import math
import warnings

import numpy as np
import torch

from .base import (Adapter, ArrayNamespace, HookGroup, copy_of_model, not_numbers,
                   is_nndebug_hook, nndebug_hook, owned_tensor_hook)

def _graph_tensors(values, depth=2):
    """The tensors among ``values`` (and inside lists, tuples and dicts among them, ``depth``
    levels down) that are results of an autograd graph, not leaves: deep copy refuses them."""
    for value in values:
        if isinstance(value, torch.Tensor):
            if value.grad_fn is not None:
                yield value
        elif depth and isinstance(value, (list, tuple)):
            yield from _graph_tensors(value, depth - 1)
        elif depth and isinstance(value, dict):
            yield from _graph_tensors(value.values(), depth - 1)


_HOOK_TABLES = ("_forward_hooks", "_forward_pre_hooks", "_backward_hooks", "_backward_pre_hooks",
                "_forward_hooks_with_kwargs", "_forward_pre_hooks_with_kwargs",
                "_forward_hooks_always_called", "_state_dict_hooks", "_load_state_dict_pre_hooks")

_NUMPY_TO_TORCH = {np.dtype(np.float16): torch.float16, np.dtype(np.float32): torch.float32,
                   np.dtype(np.float64): torch.float64}


_NUMPY_FLOATS = (torch.float16, torch.float32, torch.float64)


def _numpy_ready(tensor):
    """``tensor`` in a dtype NumPy has: bfloat16 (and the float8 kinds) become float32,
    which holds each of their values exactly."""
    if tensor.is_floating_point() and tensor.dtype not in _NUMPY_FLOATS:
        return tensor.float()
    return tensor


class TorchNamespace(ArrayNamespace):
    """ArrayNamespace on torch tensors: reductions run on the tensor's own device."""

    def asfloat(self, x): return x if x.is_floating_point() else x.float()
    def abs(self, x): return x.abs()
    def sqrt(self, x): return x.sqrt()
    def mean(self, x, axis=None): return x.mean() if axis is None else x.mean(dim=axis)
    def sum(self, x, axis=None): return x.sum() if axis is None else x.sum(dim=axis)
    def std(self, x, axis=None):
        """On the CPU in two passes (see ``mean_std``): torch's std kernel along an axis runs
        at a tenth of that speed there on a 64x1024 batch (400 us against 40)."""
        if x.is_cpu and x.numel() > 0:
            if axis is None:
                return self.mean_std(x)[1]
            axes = (axis,) if isinstance(axis, int) else tuple(axis)
            count = math.prod(x.shape[a] for a in axes)
            return torch.linalg.vector_norm(x - x.mean(dim=axes, keepdim=True), dim=axes) \
                / math.sqrt(count)
        return x.std(correction=0) if axis is None else x.std(dim=axis, correction=0)
    def amax(self, x, axis=None): return x.amax() if axis is None else x.amax(dim=axis)
    def amin(self, x, axis=None): return x.amin() if axis is None else x.amin(dim=axis)
    def aminmax(self, x): return tuple(torch.aminmax(x))
    def all(self, x, axis=None): return x.all() if axis is None else x.all(dim=axis)
    def any(self, x, axis=None): return x.any() if axis is None else x.any(dim=axis)
    def isfinite(self, x): return torch.isfinite(x)
    def where(self, cond, a, b): return torch.where(cond, a, b)
    def reshape(self, x, shape): return x.reshape(shape)
    def stack(self, xs): return torch.stack(list(xs))
    def concat(self, xs): return torch.cat([x.reshape(-1) for x in xs])
    def scalar(self, value, like): return torch.as_tensor(value, dtype=like.dtype, device=like.device)

    def mean_std(self, x):
        """On the CPU in two passes, the mean and then the norm of the deviations from it:
        torch's one-pass std runs at a third to a half of that speed there (64x8x8x8
        floats: 36 us against 19 us for both numbers). Elsewhere torch's own kernels."""
        mean = x.mean()
        n = x.numel()
        if x.is_cpu and n > 0:
            return mean, torch.linalg.vector_norm(x - mean) / math.sqrt(n)
        return mean, x.std(correction=0)


def transformed(tensor):
    """Whether ``tensor`` is a wrapper a ``torch.func`` transform (``vmap``, ``grad``,
    ``jacrev``) runs the model on: one the monitor must not reduce or keep (a reduction to a
    number fails inside ``vmap``, and the wrapper is dead once the transform returns)."""
    return torch._C._functorch.is_functorch_wrapped_tensor(tensor)


def under_transform():
    """Whether the code runs inside a ``torch.func`` transform."""
    return torch._C._functorch.maybe_current_level() is not None


class TorchAdapter(Adapter):
    framework = "torch"
    _xp = TorchNamespace()

    # --- structure ---------------------------------------------------------
    def own_parameters(self, module):
        return list(module.named_parameters(recurse=False))

    def add_forward_pre_hook(self, module, fn, with_kwargs=False):
        if not with_kwargs:
            return super().add_forward_pre_hook(module, fn)

        @nndebug_hook
        def hook(mod, args, kwargs):      # model(input_ids=..., labels=...) has no args
            fn(mod, args, kwargs)
        return module.register_forward_pre_hook(hook, with_kwargs=True)

    # --- arrays --------------------------------------------------------------
    def is_tensor(self, value):
        """A tensor the monitor may measure: not one wrapped by a ``torch.func`` transform
        (``vmap``, ``grad``, ``jacrev`` run the model on wrapper tensors that cannot be
        reduced to a number inside the transform, and fail when used after it)."""
        return isinstance(value, torch.Tensor) and not transformed(value)

    def to_numpy(self, value):
        if isinstance(value, torch.Tensor):
            return _numpy_ready(value.detach()).cpu().numpy().copy()
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
        return self.dtype_without_parameters

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
            raise not_numbers(self, value, array)
        return self.from_numpy(array)

    # --- evaluation -------------------------------------------------------------
    def _float_leaves(self, inputs):
        if isinstance(inputs, torch.Tensor):
            return [inputs] if inputs.is_floating_point() and not transformed(inputs) else []
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

    def loss_and_grads(self, inputs, targets, loss_fn, *, wrt_inputs=False, grad_scale=1.0):
        """See Adapter.loss_and_grads; ``grad_scale`` is the gradient fed to backward at the
        loss (dL/dL), 1 normally: gradcheck's zero-cotangent rule runs it with 0 and 2."""
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
            # d(c * loss) seeds backward with exactly c; (grad_outputs= would import sympy)
            scaled = loss if grad_scale == 1.0 else loss * float(grad_scale)
            grads = torch.autograd.grad(scaled, wrt, allow_unused=True) \
                if wrt and loss.requires_grad else [None] * len(wrt)
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
    def private_copy(self, dtype=np.float64, *, hooks=True):
        """A deep copy cast to ``dtype`` that computes what the user's model computes.

        The user's own hooks take part (``hooks=True``): module forward, pre-forward and
        full backward hooks, and tensor hooks registered on parameters, are carried over
        as the same functions (a hook is called with the copy's module, so a hook that
        doubles an output or halves a gradient does so in the copy too). nndebug's own
        hooks (a running monitor's) are left behind, and so are the hook objects' closures:
        the tables are swapped for shallow copies during the deep copy (memo), so a hook
        closing over something big or uncopyable (a file, a lock) is shared, not copied.
        A hook the copy cannot reproduce is named in a ``UserWarning``.

        A tensor a module keeps from its last forward pass as a plain attribute (a mixture
        of experts' balance loss, ``self.aux = ...``) is still part of that pass's graph, and
        torch refuses to deep-copy such a tensor; the copy holds it detached (real-bug batch
        168: the dependency probe gave up on such a model without a word).
        """
        memo = {}
        for module in self.model.modules():
            for value in _graph_tensors(vars(module).values()):
                memo[id(value)] = value.detach().clone()
            kept_ids = {}
            for table in _HOOK_TABLES:
                live = getattr(module, table, None)
                if isinstance(live, dict):
                    kept = type(live)()
                    if hooks:
                        base = kept_ids.get(table.replace("_with_kwargs", "")
                                            .replace("_always_called", ""))
                        # *_with_kwargs and *_always_called tables hold flags (hook id -> True)
                        # for the hooks of their base table: a flag stays or goes with its hook
                        kept.update((k, fn) for k, fn in live.items() if
                                    (k in base if base is not None else not is_nndebug_hook(fn)))
                    kept_ids[table] = set(kept)
                    memo[id(live)] = kept
        tensor_hooks = []
        for name, p in self.model.named_parameters():
            if getattr(p, "_backward_hooks", None) is not None:
                memo[id(p._backward_hooks)] = type(p._backward_hooks)()
                tensor_hooks.append((name, [fn for fn in p._backward_hooks.values()
                                            if not is_nndebug_hook(fn)]))
            if p.grad is not None:
                memo[id(p.grad)] = None
        unreproduced = [name for name, p in self.model.named_parameters()
                        if getattr(p, "_post_accumulate_grad_hooks", None)]
        clone = copy_of_model(self.model, memo)
        target = _NUMPY_TO_TORCH[np.dtype(dtype)]
        with torch.no_grad():
            for module in clone.modules():
                for p in module.parameters(recurse=False):
                    p.grad = None
                    if p.is_floating_point():
                        p.data = p.data.to(target)
                    if getattr(p, "_backward_hooks", None):
                        p._backward_hooks.clear()
                for name, b in module.named_buffers(recurse=False):
                    if b is not None and b.is_floating_point():
                        setattr(module, name, b.to(target))
        if hooks:
            copies = dict(clone.named_parameters())
            for name, fns in tensor_hooks:
                for fn in fns:
                    if copies[name].requires_grad:
                        copies[name].register_hook(fn)
            if unreproduced:
                warnings.warn(
                    "nndebug checks a copy of the model: the post-accumulate-grad hooks on "
                    f"{', '.join(unreproduced[:5])} run only when .grad is written, so the "
                    "check does not see what they do", UserWarning, stacklevel=3)
        copied = TorchAdapter(clone)
        copied.dtype_without_parameters = np.dtype(dtype)   # a parameter-free copy too
        return copied

    def capture_state(self):
        return {
            # .grad is kept as (the tensor itself, a copy of its values): restored in place,
            # so a reference to it (DDP's gradient_as_bucket_view, an optimizer's view) stays valid
            "params": [(p, p.detach().clone(), p.dtype, p.requires_grad,
                        None if p.grad is None else (p.grad, p.grad.detach().clone()))
                       for p in self.model.parameters()],
            "buffers": [(m, n, b, None if b is None else b.detach().clone())
                        for m in self.model.modules() for n, b in m.named_buffers(recurse=False)],
            "training": [(m, m.training) for m in self.model.modules()],
            "hooks": {id(m): {t: dict(getattr(m, t)) for t in _HOOK_TABLES
                              if isinstance(getattr(m, t, None), dict)} for m in self.model.modules()},
            "tensor_hooks": [(p, dict(p._backward_hooks) if p._backward_hooks else None)
                             for p in self.model.parameters()],
            "rng": self.get_rng_state(),
            "default_dtype": torch.get_default_dtype(),
            "grad_enabled": torch.is_grad_enabled(),
        }

    def restore_state(self, state):
        torch.set_default_dtype(state.get("default_dtype", torch.get_default_dtype()))
        torch.set_grad_enabled(state.get("grad_enabled", torch.is_grad_enabled()))
        with torch.no_grad():
            for p, value, dtype, flag, grad in state["params"]:
                if p.dtype != dtype:
                    p.data = p.data.to(dtype)
                p.copy_(value)
                p.requires_grad_(flag)
                if grad is None:
                    p.grad = None
                else:
                    tensor, values = grad
                    if tensor.shape == values.shape and tensor.dtype == values.dtype:
                        tensor.copy_(values)
                        if p.grad is not tensor:
                            p.grad = tensor
                    else:
                        p.grad = values.clone()
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
            if (grad is None) != (p.grad is None) or (grad is not None and not torch.equal(grad[1], p.grad)):
                problems.append(f"parameter {name}: .grad changed")
        for module, name, current, value in state["buffers"]:
            buffer = getattr(module, name)
            if value is not None and (buffer.dtype != value.dtype or not torch.equal(buffer, value)):
                problems.append(f"buffer {name}: changed")
        return problems + self._module_state_differences(state, torch.get_default_dtype())

    # --- randomness ---------------------------------------------------------------
    def _framework_rng_state(self):
        state = {"torch": torch.get_rng_state()}
        if torch.cuda.is_available() and torch.cuda.is_initialized():
            state["cuda"] = torch.cuda.get_rng_state_all()   # GPU dropout draws from these
        return state

    def _set_framework_rng_state(self, state):
        torch.set_rng_state(state["torch"])
        if "cuda" in state:
            torch.cuda.set_rng_state_all(state["cuda"])

    def _seed_framework(self, seed):
        """Seed the generators ``_framework_rng_state`` saves, and only those.

        Not ``torch.manual_seed``: on a GPU (or XPU, MTIA) not yet initialised it queues a
        seeding call that runs when the device starts, possibly after this fork was
        restored, which would reseed the user's device generator for good. Queuing also
        records a Python stack trace per device kind, most of the cost of a seeding (about
        a third of the loss-scale probe on a small MLP)."""
        torch.default_generator.manual_seed(seed)
        if torch.cuda.is_available() and torch.cuda.is_initialized():
            torch.cuda.manual_seed_all(seed)

    def _rng_tensor_equal(self, a, b):
        return torch.equal(a, b)

    # --- hooks -------------------------------------------------------------------
    def add_tensor_hook(self, tensor, fn):
        if not isinstance(tensor, torch.Tensor) or not tensor.requires_grad:
            return None
        return tensor.register_hook(owned_tensor_hook(fn))

    def add_tensor_hooks(self, tensors, fns):
        """Each leaf tensor's hook goes straight into its hook table, as ``register_hook``
        puts it there, without a handle object per tensor (a 78-parameter residual MLP
        spent about half a millisecond of every record on those). The key is an object of
        our own, so it cannot collide with the ids of the user's hooks. A tensor with a
        ``grad_fn`` or of a subclass goes through ``register_hook``."""
        entries, handles = [], []
        for tensor, fn in zip(tensors, fns):
            if not isinstance(tensor, torch.Tensor) or not tensor.requires_grad:
                continue
            hook = fn if is_nndebug_hook(fn) else owned_tensor_hook(fn)
            if type(tensor) in _PLAIN_TENSORS and tensor.grad_fn is None:
                table = tensor._backward_hooks
                if table is None:
                    tensor._backward_hooks = table = collections.OrderedDict()
                key = object()
                table[key] = hook
                entries.append((table, key))
            else:
                handles.append(tensor.register_hook(hook))
        return HookGroup(handles, entries)

    def add_forward_hooks(self, pairs):
        """Each module's forward hook goes straight into its ``_forward_hooks`` table, as
        ``register_forward_hook`` puts it there, without a handle object per module (a
        12-block residual MLP has 52 measured layers, hooked at every record). The key is an
        object of our own, so it cannot collide with the ids of the user's hooks; torch looks
        keys up in its kwargs and always-called tables, where ours are absent: a plain hook.
        A module without a plain hook table (a scripted one) goes through
        ``register_forward_hook``."""
        entries, handles = [], []
        for module, fn in pairs:
            hook = fn if is_nndebug_hook(fn) else nndebug_hook(fn)
            table = getattr(module, "_forward_hooks", None)
            if type(table) is collections.OrderedDict and \
                    not isinstance(module, torch.jit.ScriptModule):
                key = object()
                table[key] = hook
                entries.append((table, key))
            else:
                handles.append(module.register_forward_hook(hook))
        return HookGroup(handles, entries)

    def _tensor_hooks(self, tensor):
        return list((getattr(tensor, "_backward_hooks", None) or {}).values())

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

    def version_counter(self, tensor):
        """torch's own count (``tensor._version``, shared by a tensor and its detached views):
        the check autograd itself uses to refuse a saved tensor changed in place."""
        return tensor._version

    @property
    def xp(self):
        return self._xp

    def to_host(self, tensor):
        return _numpy_ready(tensor.detach()).cpu().numpy()

    def on_host(self, tensor):
        return tensor.is_cpu

    def host_scalar(self, value):
        if type(value) is torch.Tensor and self.on_host(value) and value.is_floating_point() \
                and value.numel() == 1:
            return value.item()
        return super().host_scalar(value)      # a Python number (``loss.item()``)

    def host_view(self, tensor):
        if not tensor.is_cpu:
            return None
        try:     # detach() only when needed: a batch seldom requires grad (one object less)
            return (tensor.detach() if tensor.requires_grad else tensor).numpy()
        except (TypeError, RuntimeError):      # bfloat16 and other dtypes NumPy lacks
            return None

    # --- optimizers ------------------------------------------------------------------
    def decouples_weight_decay(self, optimizer, group):
        """AdamW, or any optimizer whose group sets decoupled_weight_decay=True (torch's
        Adam and its relatives accept it since 2.x; AdamW's groups carry it as True)."""
        return bool(group.get("decoupled_weight_decay", False)) or \
            super().decouples_weight_decay(optimizer, group)

    # --- checking backward passes ------------------------------------------------
    def record_calls(self, inputs, targets=None, loss_fn=None, *, record_primitives=False):
        """See ``Adapter.record_calls``; run without a graph: the recording keeps copies of
        every module's inputs and outputs, and a graph would keep a second set alive (on a
        ResNet-18 at batch 8, hundreds of MB) for nothing - re-runs build their own."""
        with torch.no_grad():
            return super().record_calls(inputs, targets, loss_fn,
                                        record_primitives=record_primitives)

    def private_inputs(self, value):
        return _detached_copy(self.prepare(value))

    def set_element(self, tensor, flat_index, value):
        with torch.no_grad():
            if tensor.is_contiguous():
                tensor.view(-1)[flat_index] = value
            else:
                super().set_element(tensor, flat_index, value)

    @contextlib.contextmanager
    def default_dtype(self, dtype):
        """New tensors in ``dtype`` while a private copy cast to it runs; in a float64 copy,
        ``tensor.float()`` too (``_float_means_float64``)."""
        previous = torch.get_default_dtype()
        wanted = _NUMPY_TO_TORCH[np.dtype(dtype)]
        torch.set_default_dtype(wanted)
        try:
            with _float_means_float64() if wanted == torch.float64 else contextlib.nullcontext():
                yield
        finally:
            torch.set_default_dtype(previous)

    def _snapshot(self, value):
        return _detached_copy(value)

    def _rebuild(self, value, arrays, make_leaf):
        """``value`` with its float tensors replaced, in order, by ``make_leaf(next array)``;
        other tensors cloned (a module may modify its inputs in place)."""
        if isinstance(value, torch.Tensor):
            if value.is_floating_point():
                return make_leaf(next(arrays), value)
            return value.clone()
        if isinstance(value, (tuple, list)):
            return type(value)(self._rebuild(v, arrays, make_leaf) for v in value)
        if isinstance(value, dict):
            return {k: self._rebuild(v, arrays, make_leaf) for k, v in value.items()}
        return value

    def _twin(self, tensor):
        return tensor.view_as(tensor) if tensor.requires_grad else tensor

    def _require_grad(self, tensor):
        tensor.requires_grad_(True)

    def _replace_float(self, value, replacements):
        return self._rebuild(value, replacements, lambda twin, like: twin)

    def _run_call(self, call, input_arrays, requires_grad):
        arrays = call.inputs if input_arrays is None else input_arrays
        leaves = []

        def make_leaf(array, like):
            leaf = torch.tensor(np.asarray(array), dtype=like.dtype, device=like.device,
                                requires_grad=requires_grad)
            leaves.append(leaf)
            return leaf.clone() if requires_grad else leaf   # in-place ops may not touch a leaf

        args, kwargs = self._rebuild((call.args, call.kwargs), iter(arrays), make_leaf)
        if call.uses_rng:
            self.set_rng_state(call.rng_state)
        return call.module(*args, **kwargs), leaves

    def _contract(self, output, cotangents):
        outs = self._float_leaves(output)
        if len(outs) != len(cotangents):
            raise ValueError(f"the call gave {len(outs)} float outputs this time, "
                             f"{len(cotangents)} when it was recorded")
        total = None
        for out, cot in zip(outs, cotangents):
            term = (out * torch.as_tensor(np.asarray(cot), dtype=out.dtype, device=out.device)).sum()
            total = term if total is None else total + term
        return total

    def module_value(self, call, cotangents, input_arrays=None):
        with torch.no_grad():
            output, _ = self._run_call(call, input_arrays, requires_grad=False)
            total = self._contract(output, cotangents)
        return 0.0 if total is None else float(total.cpu())

    def module_vjp(self, call, cotangents, input_arrays=None, params=None):
        params = self.trainable_own_parameters(call.module) if params is None else list(params)
        with torch.enable_grad():
            output, leaves = self._run_call(call, input_arrays, requires_grad=True)
            total = self._contract(output, cotangents)
            wrt = leaves + [p for _, p in params]
            if total is None or not total.requires_grad or not wrt:
                grads = [None] * len(wrt)
            else:
                grads = torch.autograd.grad(total, wrt, allow_unused=True)
        value = 0.0 if total is None else float(total.detach().cpu())
        as_array = [np.zeros(tuple(t.shape)) if g is None else self.to_numpy(g).astype(np.float64)
                    for t, g in zip(wrt, grads)]
        return (value, as_array[:len(leaves)],
                {name: g for (name, _), g in zip(params, as_array[len(leaves):])})

    # --- added for the monitor: one call for a statistic over many tensors ----------------
    # nndebug.watch reduces every parameter of a model at each recorded step; one batched
    # call per quantity instead of one small kernel per tensor keeps its cost low.
    def norms(self, tensors):
        """L2 norm of each tensor, as one 1-D float32 tensor on the tensors' device."""
        with torch.no_grad():
            if not tensors:
                return torch.zeros(0)
            try:
                values = torch._foreach_norm(list(tensors))
            except (AttributeError, RuntimeError, TypeError):
                values = [t.norm() for t in tensors]
            # one stack (it promotes mixed float dtypes), then float32: not one .float() a
            # tensor, which cost ~20 Python calls a record on a 2-layer MLP
            return torch.stack(values).float()

    def differences(self, tensors, others):
        """Element-wise ``a - b`` for each pair, detached (one batched call)."""
        with torch.no_grad():
            try:
                return list(torch._foreach_sub(list(tensors), list(others)))
            except (AttributeError, RuntimeError, TypeError):
                return [a - b for a, b in zip(tensors, others)]

    def identical(self, tensor, other):
        """Whether two tensors hold exactly the same values (NaN never does). It returns a
        Python bool: on an accelerator that waits for the device, so call it on the host.
        No ``no_grad()`` around it: a bool records no graph, and the context cost more than
        the comparison (called once per parameter at every record)."""
        return torch.equal(tensor, other)     # False for other shapes too

    def copies_into(self, buffers, tensors):
        """Detached copies of ``tensors`` (kept where they live, e.g. the weights before an
        update), written into ``buffers`` (an earlier result) when they still match in shape,
        dtype and device: a monitor that copies the weights at every record
        reuses one set of buffers instead of allocating and freeing a model's worth each time
        (which fragments the process heap and grows its memory)."""
        with torch.no_grad():
            sources = [t.detach() for t in tensors]
            if buffers is None or len(buffers) != len(sources) or any(
                    b.shape != t.shape or b.dtype != t.dtype or b.device != t.device
                    for b, t in zip(buffers, sources)):
                return [t.clone() for t in sources]
            try:
                torch._foreach_copy_(buffers, sources)
            except (AttributeError, RuntimeError, TypeError):
                for b, t in zip(buffers, sources):
                    b.copy_(t)
            return buffers

    def subtract_in_place(self, targets, others):
        """``target -= other`` for each pair, in place (``targets``: the caller's own private
        copies); returns ``targets``. No new tensor the size of the model (one batched call)."""
        with torch.no_grad():
            try:
                torch._foreach_sub_(list(targets), list(others))
            except (AttributeError, RuntimeError, TypeError):
                for a, b in zip(targets, others):
                    a.sub_(b)
        return targets

    # added for the monitor: torch keeps an empty hook table on a tensor once a hook was
    # removed, and every backward then calls into Python for it (~2 us per parameter);
    # the monitor puts back "no table at all" where there was none before it
    def tensor_hook_tables(self, tensors):
        """What to hand to ``restore_tensor_hook_tables`` after hooks were added and removed."""
        return [t._backward_hooks is None for t in tensors]

    def restore_tensor_hook_tables(self, tensors, tables):
        for tensor, had_none in zip(tensors, tables):
            if had_none and tensor._backward_hooks is not None and not tensor._backward_hooks:
                tensor._backward_hooks = None


_PLAIN_TENSORS = (torch.Tensor, torch.nn.Parameter)


@contextlib.contextmanager
def _float_means_float64():
    """``tensor.float()`` gives float64 while a float64 private copy runs.

    In a forward, ``x.float()`` means "the model's float dtype" (integer ids or a float16
    batch brought to the weights' dtype). The probes run a copy cast to float64, where
    float32 inputs meet float64 weights and torch refuses the product ("mat1 and mat2 must
    have the same dtype"): check_dependencies, compare and gradcheck then failed on any
    model whose forward calls ``.float()``. ``.to(torch.float32)`` is left as written."""
    original = torch.Tensor.float

    def as_the_copy(tensor, memory_format=torch.preserve_format):
        return tensor.to(torch.float64, memory_format=memory_format)

    torch.Tensor.float = as_the_copy
    try:
        yield
    finally:
        torch.Tensor.float = original


def _detached_copy(value):
    if isinstance(value, torch.Tensor):
        return value.detach().clone()
    if isinstance(value, (tuple, list)):
        return type(value)(_detached_copy(v) for v in value)
    if isinstance(value, dict):
        return {k: _detached_copy(v) for k, v in value.items()}
    return value
