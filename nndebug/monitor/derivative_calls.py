"""Calls of ``torch.autograd.grad`` in the training loop: the derivatives a loss is built
from (``run.observed.derivative_calls`` and ``run.observed.per_position_gradient_norms``,
read by ``nndebug.rules.derivative_losses``).

Physics-informed networks put derivatives of the model's output with respect to its input
into the loss (u_t, u_xx), gradient penalties put the input gradient's norm there (WGAN-GP,
R1), gradient-alignment methods the spread of per-task parameter gradients (IGA). Each of
those is a call of ``torch.autograd.grad`` whose result feeds the loss, and the bugs of the
kind sit in the call:

- a second derivative of a ReLU network is exactly zero everywhere (the network is
  piecewise linear in its input), so a residual u_xx - f trains nothing
  (lululxvi/deepxde#80);
- ``u_xx = grad(u, x)`` is the first derivative again: the same call made twice in the
  step, and no call differentiates a derivative (AdityaLab/pinnsformer#2);
- an image-shaped input gradient (batch, channel, height, width) whose norm is taken over
  ``dim=1`` only: one norm per pixel, each held to 1 (Zeleni9/pytorch-wgan#40). The loss
  graph shows it: a vector norm over one axis of a derivative that ``create_graph`` built.

While watching, ``torch.autograd.grad`` (reached as ``torch.autograd.grad`` or
``autograd.grad`` after ``from torch import autograd``) is replaced by a wrapper that calls
the original and, on the first ``DERIVATIVE_STEPS_NOTED`` steps that call it, notes per call:
``(step, order, with respect to, create_graph, result exactly zero, repeats an earlier call
of the step, rank of the result)``; "with respect to" is "parameters", "inputs", or
"computed": a tensor the graph computed (a model output), with create_graph=True, and the
results came back without a graph (``grad(y.sum(), y)``: a constant, real-bug batch 274).
``order`` is 1 plus the largest order among the call's outputs (a derivative of a
derivative is 2). Calls from nndebug's own code are not noted; ``close()`` puts the
original back. Cost: nothing once the steps are noted (the wrapper passes through); on
a noted step one host sync per call (whether the result is all zeros). The tensors of the
step's calls are held until the next step's first call (so an id is not reused within a
step): after the last noted step, one step's derivatives stay referenced until the monitor
closes. A function imported before watching (``from
torch.autograd import grad``) is not seen.

Whether anything trains through them (real-bug batch 336: a WGAN-GP critic whose gradient
penalty is computed and never added, LixiangHan/GANs-for-1D-Signal#7): each result of a
``create_graph=True`` call gets a hook that marks it when a later backward (or gradient
call) reaches it. ``create_graph`` is asked for exactly so that a loss can be trained
through the derivative; on a noted step where none of those results was reached, the term
built from them was left out of the loss. Kept per noted step, when the next step's first
call comes or the monitor closes: ``run.observed.derivative_reach``, ``(step, results made
with a graph, results reached)``.
"""
import sys

DERIVATIVE_STEPS_NOTED = 3       # [design] steps whose derivative calls are noted: a loss's
                                 # derivatives are the same on every step
DERIVATIVE_CALLS_PER_STEP = 32   # [design] calls noted per step at most (a loop over inputs)
NORM_NODE_TYPES = ("LinalgVectorNormBackward0", "NormBackward1", "NormBackward0")


class DerivativeCalls:
    def __init__(self, adapter, observed, parameters, current_step, on_error):
        self.observed, self._current_step, self._on_error = observed, current_step, on_error
        self._original = self._wrapper = None
        self._param_ids = {id(p) for p in parameters}
        self._steps, self._step = [], None
        self._results = {}          # id(result) -> (result, order), this step only
        self._calls = {}            # (outputs, inputs) ids of this step's calls -> the
                                    # tensors (held: an id is not reused within the step)
        self._image_gradients = {}  # result's grad_fn -> its shape, this step only (norms)
        self._reach = None          # [step, results made with a graph, results reached] of
                                    # the step being noted (batch 336)
        self.norms = PerPositionNorms(self)
        if adapter.framework != "torch":
            return
        try:
            import torch.autograd
            original = torch.autograd.grad
            self._original, self._wrapper = original, self._wrap(original)
            torch.autograd.grad = self._wrapper
        except Exception as error:        # a torch whose grad cannot be wrapped
            self._original = self._wrapper = None
            on_error(error)

    # --- the wrapper ---------------------------------------------------------------------
    def _wrap(self, original):
        def grad(outputs, inputs, *args, **kwargs):
            result = original(outputs, inputs, *args, **kwargs)
            if self._wrapper is not None and len(self._steps) <= DERIVATIVE_STEPS_NOTED and \
                    not _from_nndebug() and not _inside_torch_func():
                try:
                    self._note(outputs, inputs, result, args, kwargs)
                except Exception as error:    # never break the user's call
                    self._on_error(error)
            return result
        grad.__doc__ = original.__doc__
        grad.__wrapped__ = original
        return grad

    def _note(self, outputs, inputs, result, args, kwargs):
        step = int(self._current_step())
        if step != self._step:
            self._flush_reach()
            if len(self._steps) >= DERIVATIVE_STEPS_NOTED:
                self._steps.append(step)          # past the noted steps: stop noting
                self._results, self._calls, self._image_gradients = {}, {}, {}
                return
            self._step = step
            self._steps.append(step)
            self._results, self._calls, self._image_gradients = {}, {}, {}
        outputs, inputs = _as_tuple(outputs), _as_tuple(inputs)
        results = [r for r in _as_tuple(result) if r is not None]
        if len(self._results) >= DERIVATIVE_CALLS_PER_STEP or not results:
            return
        # grad(outputs, inputs, grad_outputs, retain_graph, create_graph, ...)
        create_graph = bool(kwargs.get("create_graph", args[2] if len(args) > 2 else False))
        order = 1 + max((self._results.get(id(o), (None, 0))[1] for o in outputs), default=0)
        wrt = "parameters" if any(id(t) in self._param_ids for t in inputs) else "inputs"
        if wrt == "inputs" and create_graph and _constant_of_computed(inputs, results):
            wrt = "computed"      # real-bug batch 274: d sum(y) / dy, the output by itself
        key = (tuple(id(o) for o in outputs), tuple(id(t) for t in inputs))
        repeats = key in self._calls
        self._calls[key] = (outputs, inputs)
        import torch
        with torch.no_grad():     # one host sync per result, until one is not all zero
            zero = not any(bool(r.detach().ne(0).any()) for r in results)
        if create_graph:
            self._watch_reach(step, results)
        for r in results:
            self._results[id(r)] = (r, order)
            if wrt == "inputs" and create_graph and r.ndim >= 3 and r.grad_fn is not None:
                self._image_gradients[r.grad_fn] = tuple(r.shape)
        self.observed.derivative_calls.append(
            (step, order, wrt, create_graph, zero, repeats, max(r.ndim for r in results)))

    def _watch_reach(self, step, results):
        """A hook on each result that carries a graph: marks it reached by a later pass."""
        if self._reach is None or self._reach[0] != step:
            self._reach = [step, 0, 0]
        counts = self._reach
        for r in results:
            if not r.requires_grad:
                continue
            counts[1] += 1
            reached = [False]

            def mark(grad, reached=reached, counts=counts):
                if not reached[0]:
                    reached[0] = True
                    counts[2] += 1
            r.register_hook(mark)

    def _flush_reach(self):
        """The noted step's (step, made, reached) row, once its passes are over."""
        if self._reach is not None and self._reach[1] > 0:
            self.observed.derivative_reach.append(tuple(self._reach))
        self._reach = None

    def close(self):
        self._flush_reach()
        wrapper, self._wrapper = self._wrapper, None     # a wrapper left behind passes through
        self._results, self._calls, self._image_gradients = {}, {}, {}
        if wrapper is None:
            return
        import torch.autograd
        if torch.autograd.grad is wrapper:
            torch.autograd.grad = self._original


class PerPositionNorms:
    """A loss-graph reader (``graph_walks.LossGraph``): the vector norms in the loss that
    reduce an image-shaped input gradient (one ``create_graph`` call made this step) over
    some of its non-batch axes only, leaving one norm per position. Noted as ``(step, rank of
    the gradient, axes reduced, norms per sample)``."""

    def __init__(self, calls):
        self.calls, self.walks = calls, 0

    def wants(self, step):
        return self.walks < DERIVATIVE_STEPS_NOTED and bool(self.calls._image_gradients)

    def read(self, step, nodes):
        self.walks += 1
        gradients = self.calls._image_gradients
        for node in nodes:
            if type(node).__name__ not in NORM_NODE_TYPES:
                continue
            shape = gradients.get(_norm_input(node))
            if shape is None:
                continue
            kept = _norms_per_sample(node, shape)
            if kept is not None:
                self.calls.observed.per_position_gradient_norms.append((int(step), *kept))
                return


def _norm_input(node):
    """The node whose output a norm reads: the gradient's own node when the norm is taken
    straight on it (a view as (batch, -1) first puts a view node between: the per-sample
    norm the method asks for)."""
    children = [child for child, _ in getattr(node, "next_functions", ()) if child is not None]
    return children[0] if children else None


def _norms_per_sample(node, shape):
    """(rank, axes reduced, norms per sample) when the norm leaves more than one value per
    sample of a gradient of ``shape``; None otherwise (the axes are read from the node,
    which keeps them after the backward has freed its saved tensors)."""
    dims = getattr(node, "_saved_dim", None)
    if dims is None:
        return None
    rank = len(shape)
    dims = [d % rank for d in (dims if isinstance(dims, (tuple, list)) else [dims])]
    if not dims or 0 in dims:
        return None
    left = 1
    for axis in range(1, rank):
        if axis not in dims:
            left *= shape[axis]
    return (rank, len(dims), left) if left > 1 else None


def _constant_of_computed(inputs, results):
    """Whether the call differentiates with respect to a tensor the graph computed (not a
    leaf the loop made: an output, a hidden value) and, asked for a graph, got results
    with none: the outputs are linear in that tensor with constant coefficients (the
    prediction differentiated by itself, grad(y.sum(), y) = ones), so the derivative is a
    constant that no weight moves - never the model's derivative with respect to its input,
    which a graph over the weights always carries (real-bug batch 274)."""
    return any(getattr(t, "grad_fn", None) is not None for t in inputs) and \
        not any(r.requires_grad for r in results)


def _as_tuple(value):
    if isinstance(value, (tuple, list)):
        return tuple(value)
    return (value,)


def _from_nndebug():
    """Whether the call comes from nndebug's own code (a probe, a helper)."""
    caller = sys._getframe(2).f_globals.get("__name__", "")
    return caller == "nndebug" or caller.startswith("nndebug.")


def _inside_torch_func():
    """Whether the call runs inside a ``torch.func`` transform: ``torch.func.grad`` calls
    ``torch.autograd.grad`` on wrapper tensors that cannot be measured there (a meta-learning
    inner loop under ``vmap``); such calls are the transform's, not the loop's own."""
    from ..adapters.torch_adapter import under_transform
    return under_transform()
