"""What a checked forward pass leaves behind, and the framework-free code that records it.

``Adapter.record_calls`` and ``Adapter.trace`` are implemented here once, on top of a
few framework hooks each adapter supplies (``_snapshot``, ``_float_leaves``,
``get_rng_state``, ``_primitive_observer``, ``_twin`` ...). Both wrap every module's
``forward`` for the length of one pass - rather than registering hooks - so that the
model's own hooks and their order are never touched, and put them back afterwards.

The records are plain data: NumPy arrays and framework values copied out of the graph.
"""
import contextlib
import dataclasses

import numpy as np


def record_calls(adapter, inputs, targets=None, loss_fn=None, *, record_primitives=False):
    """See ``Adapter.record_calls``."""
    inputs = adapter.prepare(inputs)
    targets = None if targets is None else adapter.prepare(targets)
    calls, stack, loose = [], [], []
    param_names = {}
    for qualified, p in adapter.named_parameters():
        param_names[adapter._storage_id(p)] = qualified
    counts = {}
    finished = [0]

    def run_recorded(call, run, received):
        """Run ``run()`` as ``call``: what it received and returned, and whether it drew
        random numbers; calls made inside it (sub-modules, primitives) nest under it."""
        call.inputs = [adapter.to_numpy(t) for t in adapter._float_leaves(received)]
        call.rng_state = adapter.get_rng_state()
        result = _run_nested(calls, stack, call, run)
        call.uses_rng = not adapter.rng_equal(call.rng_state, adapter.get_rng_state())
        call.output = adapter._snapshot(result)
        call.outputs = [adapter.to_numpy(t) for t in adapter._float_leaves(result)]
        return result

    def make_wrapper(name, module, original):
        def forward(*args, **kwargs):
            call = ModuleCall(
                name=name, module=module, index=counts.get(name, 0),
                args=adapter._snapshot(args), kwargs=adapter._snapshot(kwargs),
                parent=stack[-1] if stack else None)
            counts[name] = call.index + 1
            output = run_recorded(call, lambda: original(*args, **kwargs), (args, kwargs))
            finished[0] += 1
            call.order = finished[0]
            return output
        return forward

    def on_primitive(record):
        target = calls[stack[-1]].primitives if stack else loose
        target.append(adapter._primitive_call(record, param_names))

    with _forwards_wrapped(adapter, make_wrapper), \
            adapter._primitive_observer(on_primitive if record_primitives else None):
        output = adapter.call_model(adapter.model, inputs)
        if loss_fn is not None:
            loss_call = ModuleCall(
                name="", module=_LossCall(loss_fn, targets), index=0,
                args=(adapter._snapshot(output),), kwargs={}, parent=None, is_loss=True)
            run_recorded(loss_call, lambda: loss_fn(output, targets), output)
            loss_call.order = finished[0] + 1
    return Recording(calls=calls, output=output, loose_primitives=loose)


def trace(adapter, inputs, targets, loss_fn):
    """See ``Adapter.trace``."""
    inputs = adapter.private_inputs(inputs)
    for leaf in adapter._float_leaves(inputs):
        adapter._require_grad(leaf)
    targets = adapter.prepare(targets)
    calls, counts, finished, stack = [], {}, [0], []

    def grad_setter(store, i):
        def hook(grad):
            store[i] = adapter.to_numpy(grad).astype(np.float64)
        return hook

    def make_wrapper(name, module, original):
        def forward(*args, **kwargs):
            call = TraceCall(name=name, module_type=adapter.module_type(module),
                             index=counts.get(name, 0), parent=stack[-1] if stack else None)
            counts[name] = call.index + 1
            leaves = adapter._float_leaves((args, kwargs))
            call.grad_inputs = [None] * len(leaves)
            twins = iter([adapter._twin(t) for t in leaves])
            args, kwargs = adapter._replace_float((args, kwargs), twins)
            for i, twin in enumerate(adapter._float_leaves((args, kwargs))):
                adapter.add_tensor_hook(twin, grad_setter(call.grad_inputs, i))
            output = _run_nested(calls, stack, call, lambda: original(*args, **kwargs))
            outs = adapter._float_leaves(output)
            call.outputs = [adapter.to_numpy(t).astype(np.float64) for t in outs]
            call.grad_outputs = [None] * len(outs)
            for i, t in enumerate(outs):
                adapter.add_tensor_hook(t, grad_setter(call.grad_outputs, i))
            finished[0] += 1
            call.order = finished[0]
            return output
        return forward

    params = adapter.named_parameters()
    for _, p in params:
        p.grad = None
    with _forwards_wrapped(adapter, make_wrapper):
        output = adapter.call_model(adapter.model, inputs)
    model_outputs = adapter._float_leaves(output)
    output_grads = [None] * len(model_outputs)
    for i, t in enumerate(model_outputs):
        adapter.add_tensor_hook(t, grad_setter(output_grads, i))
    loss = adapter._scalar_loss(loss_fn(output, targets))
    loss_value = float(adapter.to_numpy(loss))
    if getattr(loss, "requires_grad", False):
        loss.backward()
    grads = {name: (np.zeros(adapter.to_numpy(p).shape) if adapter.grad_of(p) is None
                    else adapter.grad_of(p).astype(np.float64))
             for name, p in params if adapter.requires_grad(p)}
    for _, p in params:
        p.grad = None
    return Trace(calls=calls, loss=loss_value,
                 outputs=[adapter.to_numpy(t).astype(np.float64) for t in model_outputs],
                 output_grads=output_grads, grads=grads,
                 params={name: adapter.to_numpy(p).astype(np.float64) for name, p in params})


_MISSING = object()


def _run_nested(calls, stack, call, run):
    """Append ``call`` and run it with its position on ``stack``, so that the calls made
    inside it record it as their parent."""
    calls.append(call)
    stack.append(len(calls) - 1)
    try:
        return run()
    finally:
        stack.pop()


@contextlib.contextmanager
def _forwards_wrapped(adapter, make_wrapper):
    """Replace every module's ``forward`` by ``make_wrapper(name, module, forward)`` for the
    block (an instance attribute shadows the class method); put them back after."""
    wrapped, seen = [], set()
    try:
        for name, module in adapter.named_modules():
            if id(module) in seen:
                continue
            seen.add(id(module))
            own = module.__dict__.get("forward", _MISSING)
            wrapped.append((module, own))
            object.__setattr__(module, "forward", make_wrapper(name, module, module.forward))
        yield
    finally:
        for module, own in wrapped:
            if own is _MISSING:
                object.__delattr__(module, "forward")
            else:
                object.__setattr__(module, "forward", own)


class _LossCall:
    """The loss as a one-input 'module': output -> loss_fn(output, targets)."""

    def __init__(self, loss_fn, targets):
        self.loss_fn, self.targets = loss_fn, targets

    def __call__(self, output):
        return self.loss_fn(output, self.targets)


@dataclasses.dataclass(eq=False)
class ModuleCall:
    """One call of one module in a recorded forward pass (plain data).

    name:        qualified module name ("" the root; the loss pseudo-call also has "")
    index:       0 for the module's first call in the pass, 1 for the second, ...
    args/kwargs: what the call received, as detached framework copies
    inputs:      NumPy copies of the float tensors among args/kwargs, in order
    outputs:     NumPy copies of the float tensors of the output, in order
    rng_state:   every RNG's state right before the call (replayed for re-runs that need it)
    parent:      position in ``Recording.calls`` of the enclosing call, or None
    primitives:  PrimitiveCalls this call ran itself (not through a child module)
    order:       1 + how many calls had finished before this one (completion order)
    """

    name: str
    module: object
    index: int
    args: tuple
    kwargs: dict
    parent: "int | None"
    inputs: list = dataclasses.field(default_factory=list)
    rng_state: object = None
    output: object = None
    outputs: list = dataclasses.field(default_factory=list)
    primitives: list = dataclasses.field(default_factory=list)
    is_loss: bool = False
    order: int = 0
    uses_rng: bool = True         # False when the call drew no random numbers (no replay needed)


@dataclasses.dataclass(eq=False)
class PrimitiveCall:
    """One primitive applied in a recorded pass: enough to re-run it alone.

    label:     the primitive's registry name, or the class name of a user Function
    op:        the registry name, or None for functions outside the registry
    inputs:    float64 copies of its float input arrays (other arrays as recorded)
    kwargs:    its keyword constants, as recorded
    params:    {input position: qualified parameter name} for inputs that are parameters
    out_dtype: dtype the primitive produced (its precision sets the tolerance)
    """

    label: str
    op: "str | None"
    function: object
    inputs: list
    kwargs: dict
    params: dict
    out_dtype: object
    out_shape: tuple


@dataclasses.dataclass(eq=False)
class TraceCall:
    """One module call seen by ``Adapter.trace`` (NumPy float64 arrays throughout)."""

    name: str
    module_type: str
    index: int
    parent: "int | None"
    outputs: list = dataclasses.field(default_factory=list)
    grad_outputs: list = dataclasses.field(default_factory=list)
    grad_inputs: list = dataclasses.field(default_factory=list)
    order: int = 0


@dataclasses.dataclass(eq=False)
class Trace:
    calls: list
    loss: float
    outputs: list
    output_grads: list
    grads: dict
    params: dict


@dataclasses.dataclass(eq=False)
class Recording:
    calls: list
    output: object
    loose_primitives: list
