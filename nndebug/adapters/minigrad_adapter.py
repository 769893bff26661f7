"""The adapter for minigrad models (``minigrad.nn.Module``)."""
import contextlib

import numpy as np

import minigrad as mg
from minigrad import autograd
from minigrad.tensor import Tensor

from .base import (Adapter, ArrayNamespace, PrimitiveCall, copy_of_model, not_numbers,
                   is_nndebug_hook, owned_tensor_hook)

_HOOK_TABLES = ("_forward_hooks", "_forward_pre_hooks", "_backward_hooks", "_backward_pre_hooks")


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
    def aminmax(self, x): return np.amin(x), np.amax(x)
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
        return self.dtype_without_parameters

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
        raise not_numbers(self, value, array)

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

    def loss_and_grads(self, inputs, targets, loss_fn, *, wrt_inputs=False, grad_scale=1.0):
        """See Adapter.loss_and_grads; ``grad_scale`` is the gradient fed to backward at the
        loss (dL/dL), 1 normally: gradcheck's zero-cotangent rule runs it with 0 and 2."""
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
                loss.backward(np.full(loss.shape, grad_scale, dtype=loss.dtype))
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
    def private_copy(self, dtype=np.float64, *, hooks=True):
        """A deep copy cast to ``dtype`` that computes what the user's model computes:
        the user's module hooks and parameter tensor hooks come along (the same
        functions), nndebug's own are left behind. See ``TorchAdapter.private_copy``."""
        # the tables are swapped for shallow copies during the deep copy (memo): a hook
        # closing over something big or uncopyable is shared, not copied
        memo = {}
        for module in self.model.modules():
            for table in _HOOK_TABLES:
                live = getattr(module, table, None)
                if isinstance(live, dict):
                    kept = type(live)()
                    if hooks:
                        kept.update((k, fn) for k, fn in live.items() if not is_nndebug_hook(fn))
                    memo[id(live)] = kept
        tensor_hooks = {name: [fn for fn in p._hooks.values() if not is_nndebug_hook(fn)]
                        for name, p in self.named_parameters()} if hooks else {}
        clone = copy_of_model(self.model, memo)
        dtype = np.dtype(dtype)
        for name, p in clone.named_parameters():
            p.grad = None
            p._hooks = {}
            if p.data.dtype.kind == "f":
                p.data = p.data.astype(dtype)
            for fn in tensor_hooks.get(name, []):
                p.register_hook(fn)
        for module in clone.modules():
            for name, buf in list(getattr(module, "_buffers", {}).items()):
                if isinstance(buf, Tensor) and buf.dtype.kind == "f":
                    buf.data = buf.data.astype(dtype)
                elif isinstance(buf, np.ndarray) and buf.dtype.kind == "f":
                    module._buffers[name] = buf.astype(dtype)
        copied = MinigradAdapter(clone)
        copied.dtype_without_parameters = np.dtype(dtype)   # a parameter-free copy too
        return copied

    def _buffer_slots(self):
        """(module, name, buffer object, its storage array, a copy of the values)."""
        slots = []
        for module in self.model.modules():
            for name, buf in getattr(module, "_buffers", {}).items():
                if buf is None:
                    continue
                storage = buf.data if isinstance(buf, Tensor) else buf
                slots.append((module, name, buf, storage, np.array(storage, copy=True)))
        return slots

    def capture_state(self):
        return {
            # .grad is kept as (the array itself, a copy of its values): restored in place,
            # so code holding a reference to it keeps seeing the live gradient
            "params": [(p, p.data, p.data.copy(), p.requires_grad,
                        None if p.grad is None else (p.grad, p.grad.copy()), dict(p._hooks))
                       for _, p in self.named_parameters()],
            "buffers": self._buffer_slots(),
            "training": [(m, m.training) for m in self.model.modules()],
            "hooks": {id(m): {t: dict(getattr(m, t)) for t in _HOOK_TABLES
                              if isinstance(getattr(m, t, None), dict)} for m in self.model.modules()},
            "rng": self.get_rng_state(),
            "default_dtype": mg.get_default_dtype(),
            "grad_enabled": autograd.is_grad_enabled(),
        }

    def restore_state(self, state):
        mg.set_default_dtype(state.get("default_dtype", mg.get_default_dtype()))
        autograd._grad_enabled = state.get("grad_enabled", autograd.is_grad_enabled())
        for p, storage, value, flag, grad, hooks in state["params"]:
            storage[...] = value
            p.data = storage
            p.requires_grad = flag
            p.grad = None if grad is None else _refilled(*grad)
            p._hooks = dict(hooks)
        for module, name, buf, storage, value in state["buffers"]:
            module._buffers[name] = buf
            if isinstance(buf, Tensor):
                buf.data = storage
            storage[...] = value
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
            if (grad is None) != (p.grad is None) or (grad is not None and not np.array_equal(grad[1], p.grad)):
                problems.append(f"parameter {name}: .grad changed")
            if set(p._hooks) != set(hooks):
                problems.append(f"parameter {name}: tensor hooks changed")
        for module, name, buf, storage, value in state["buffers"]:
            live = module._buffers.get(name)
            live = live.data if isinstance(live, Tensor) else live
            if live is None or live.dtype != value.dtype or not np.array_equal(live, value):
                problems.append(f"buffer {name}: changed")
        return problems + self._module_state_differences(state, mg.get_default_dtype())

    # --- randomness ---------------------------------------------------------------
    def _framework_rng_state(self):
        return {"minigrad": mg.get_rng_state()}

    def _set_framework_rng_state(self, state):
        mg.set_rng_state(state["minigrad"])

    def _seed_framework(self, seed):
        mg.manual_seed(seed)

    # --- hooks -------------------------------------------------------------------
    def add_tensor_hook(self, tensor, fn):
        if not isinstance(tensor, Tensor) or not tensor.requires_grad:
            return None
        return tensor.register_hook(owned_tensor_hook(fn))

    def _tensor_hooks(self, tensor):
        return list(getattr(tensor, "_hooks", {}).values())

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
    def decouples_weight_decay(self, optimizer, group):
        """minigrad's AdamW says so with its class attribute ``_decoupled``."""
        return bool(getattr(optimizer, "_decoupled", False))

    # --- checking backward passes ------------------------------------------------
    supports_primitives = True

    def private_inputs(self, value):
        return _fresh_copy(self.prepare(value))

    def set_element(self, tensor, flat_index, value):
        np.put(tensor.data, flat_index, value)

    @contextlib.contextmanager
    def default_dtype(self, dtype):
        previous = mg.get_default_dtype()
        mg.set_default_dtype(dtype)
        try:
            yield
        finally:
            mg.set_default_dtype(previous)

    def _snapshot(self, value):
        return _fresh_copy(value)

    def _storage_id(self, tensor):
        return id(tensor.data)

    def _primitive_observer(self, callback):
        return autograd.observe_ops(callback) if callback else contextlib.nullcontext()

    def _primitive_call(self, record, param_names):
        from minigrad.ops import REGISTRY
        function = record.function
        registered = function.name if REGISTRY.get(function.name) is function else None
        params = {i: param_names[id(a)] for i, a in enumerate(record.inputs) if id(a) in param_names}
        inputs = [np.array(a, dtype=np.float64) if a.dtype.kind == "f" else np.array(a, copy=True)
                  for a in record.inputs]
        output = np.asarray(record.output)
        return PrimitiveCall(label=function.op_name(), op=registered, function=function,
                             inputs=inputs, kwargs=dict(record.kwargs), params=params,
                             out_dtype=output.dtype, out_shape=output.shape)

    def _primitive_forward(self, primitive, arrays):
        ctx = autograd.Context()
        ctx.needs_input_grad = tuple(np.asarray(a).dtype.kind == "f" for a in arrays)
        with mg.no_grad():
            out = primitive.function.forward(ctx, *arrays, **primitive.kwargs)
        return ctx, np.asarray(out)

    def primitive_forward(self, primitive, arrays):
        return self._primitive_forward(primitive, arrays)[1]

    def primitive_value(self, primitive, arrays, cotangent):
        _, out = self._primitive_forward(primitive, arrays)
        return float(np.sum(out.astype(np.float64) * cotangent))

    def primitive_vjp(self, primitive, arrays, cotangent):
        """(value, [grad or None per input]) with the backward the engine would use now."""
        ctx, out = self._primitive_forward(primitive, arrays)
        with mg.no_grad():
            grads = autograd.backward_of(primitive.function)(ctx, np.asarray(cotangent, dtype=out.dtype))
        if not isinstance(grads, tuple):
            grads = (grads,)
        grads = [None if g is None else np.asarray(getattr(g, "data", g), dtype=np.float64)
                 for g in grads]
        grads += [None] * (len(arrays) - len(grads))
        return float(np.sum(out.astype(np.float64) * cotangent)), grads[:len(arrays)]

    def engine_self_test(self):
        x = Tensor(np.array([1.5, -2.0]), requires_grad=True, dtype=np.float64)
        with mg.enable_grad():
            y = _Join.apply(_Pass.apply(x), _Pass.apply(x))
        y.backward(np.ones(2))
        got = x.grad
        if got is not None and np.allclose(got, 2.0):
            return True, "the engine's self-test passes (a tensor used twice gets both gradients)"
        shown = "nothing" if got is None else np.array2string(got)
        return False, (f"the engine's self-test fails: a tensor used twice got gradient {shown} "
                       "instead of [2. 2.] (the gradients of re-used tensors are not added up)")

    def _rebuild(self, value, arrays, make_leaf):
        if isinstance(value, Tensor):
            if value.dtype.kind == "f":
                return make_leaf(next(arrays), value)
            return Tensor(value.data.copy(), dtype=value.dtype)
        if isinstance(value, (tuple, list)):
            return type(value)(self._rebuild(v, arrays, make_leaf) for v in value)
        if isinstance(value, dict):
            return {k: self._rebuild(v, arrays, make_leaf) for k, v in value.items()}
        return value

    def _twin(self, tensor):
        from minigrad.ops import REGISTRY
        return REGISTRY["identity"].apply(tensor) if tensor.requires_grad else tensor

    def _require_grad(self, tensor):
        tensor.requires_grad = True

    def _replace_float(self, value, replacements):
        if isinstance(value, Tensor):
            return next(replacements) if value.dtype.kind == "f" else value
        if isinstance(value, (tuple, list)):
            return type(value)(self._replace_float(v, replacements) for v in value)
        if isinstance(value, dict):
            return {k: self._replace_float(v, replacements) for k, v in value.items()}
        return value

    def _run_call(self, call, input_arrays, requires_grad):
        arrays = call.inputs if input_arrays is None else input_arrays
        leaves = []

        def make_leaf(array, like):
            leaf = Tensor(np.array(array, dtype=like.dtype), requires_grad=requires_grad,
                          dtype=like.dtype)
            leaves.append(leaf)
            return leaf

        args, kwargs = self._rebuild((call.args, call.kwargs), iter(arrays), make_leaf)
        if call.uses_rng:
            self.set_rng_state(call.rng_state)
        return call.module(*args, **kwargs), leaves

    @staticmethod
    def _contract_value(outs, cotangents):
        if len(outs) != len(cotangents):
            raise ValueError(f"the call gave {len(outs)} float outputs this time, "
                             f"{len(cotangents)} when it was recorded")
        return float(sum(np.sum(o.data.astype(np.float64) * c) for o, c in zip(outs, cotangents)))

    def module_value(self, call, cotangents, input_arrays=None):
        with mg.no_grad():
            output, _ = self._run_call(call, input_arrays, requires_grad=False)
        return self._contract_value(self._float_leaves(output), cotangents)

    def module_vjp(self, call, cotangents, input_arrays=None, params=None):
        params = self.trainable_own_parameters(call.module) if params is None else list(params)
        saved = [(p, p.grad) for _, p in params]
        try:
            for p, _ in saved:
                p.grad = None
            with mg.enable_grad():
                output, leaves = self._run_call(call, input_arrays, requires_grad=True)
                outs = self._float_leaves(output)
                value = self._contract_value(outs, cotangents)
                live = [(o, c) for o, c in zip(outs, cotangents) if o.requires_grad]
                if live:
                    # a private Function, not a registered primitive: the contraction must
                    # not go through any op whose backward is being checked
                    total = _Contract.apply(*[o for o, _ in live],
                                            cotangents=[np.asarray(c) for _, c in live])
            if live:
                total.backward(np.ones((), dtype=total.dtype))
            input_grads = [np.zeros(t.shape) if t.grad is None else t.grad.astype(np.float64)
                           for t in leaves]
            param_grads = {n: np.zeros(p.shape) if p.grad is None else p.grad.astype(np.float64)
                           for n, p in params}
        finally:
            for p, grad in saved:
                p.grad = grad
        return value, input_grads, param_grads

    # --- added for the monitor: one call for a statistic over many tensors ----------------
    def norms(self, tensors):
        """L2 norm of each tensor (Tensor or array) as one 1-D NumPy array."""
        values = [np.asarray(t.data if isinstance(t, Tensor) else t) for t in tensors]
        return np.array([np.sqrt(np.sum(np.square(v, dtype=np.float64))) for v in values],
                        dtype=np.float64)

    def differences(self, tensors, others):
        """Element-wise ``a - b`` for each pair, as arrays."""
        def arr(t):
            return t.data if isinstance(t, Tensor) else np.asarray(t)
        return [arr(a) - arr(b) for a, b in zip(tensors, others)]

    def identical(self, tensor, other):
        """Whether two tensors (or arrays) hold exactly the same values (NaN never does)."""
        def arr(t):
            return t.data if isinstance(t, Tensor) else np.asarray(t)
        return bool(np.array_equal(arr(tensor), arr(other)))

    def copies_into(self, buffers, tensors):
        """Copies of the tensors' values (arrays, e.g. the weights before an update), written
        into ``buffers`` (an earlier result) when they match in shape and dtype."""
        arrays = [t.data if isinstance(t, Tensor) else np.asarray(t) for t in tensors]
        if buffers is None or len(buffers) != len(arrays) or any(
                b.shape != a.shape or b.dtype != a.dtype for b, a in zip(buffers, arrays)):
            return [np.array(a, copy=True) for a in arrays]
        for b, a in zip(buffers, arrays):
            np.copyto(b, a)
        return buffers

    def subtract_in_place(self, targets, others):
        """``target -= other`` for each pair of arrays, in place (the caller's own copies)."""
        for a, b in zip(targets, others):
            np.subtract(a, b.data if isinstance(b, Tensor) else b, out=a)
        return targets

    # added for the monitor (torch needs it; minigrad's hook table is always a dict)
    def tensor_hook_tables(self, tensors):
        return None

    def restore_tensor_hook_tables(self, tensors, tables):
        pass


class _Contract(autograd.Function):
    """sum_i <output_i, cotangent_i>, with its obvious backward (unregistered on purpose)."""

    @staticmethod
    def forward(ctx, *outputs, cotangents=()):
        ctx.cotangents = cotangents
        return np.asarray(sum(np.sum(o * c) for o, c in zip(outputs, cotangents)))

    @staticmethod
    def backward(ctx, grad):
        return tuple((grad * c).astype(np.result_type(c, grad)) for c in ctx.cotangents)


class _Pass(autograd.Function):
    @staticmethod
    def forward(ctx, a):
        return a.copy()

    @staticmethod
    def backward(ctx, grad):
        return (grad,)


class _Join(autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        return a + b

    @staticmethod
    def backward(ctx, grad):
        return grad, grad


def _fresh_copy(value):
    if isinstance(value, Tensor):
        return mg.tensor(value.data.copy(), dtype=value.dtype)
    if isinstance(value, (tuple, list)):
        return type(value)(_fresh_copy(v) for v in value)
    if isinstance(value, dict):
        return {k: _fresh_copy(v) for k, v in value.items()}
    return value


def _refilled(array, values):
    """``array`` holding ``values`` again (the same object: references to it stay valid)."""
    if array.shape != values.shape or array.dtype != values.dtype or not array.flags.writeable:
        return values.copy()
    np.copyto(array, values)
    return array
