"""Where a NaN or Inf is born: the operation that made the first non-finite value of a
recorded step (NAN_BORN_IN_FORWARD, NAN_BORN_IN_BACKWARD, ``nndebug.rules.nonfinite_origins``).

A NaN loss or NaN gradient says that something went wrong, not where. Once one update has
turned the weights into NaN every later value is NaN too, so the place is only visible on
the step that made the first one. On a recorded step (torch) every operation that can turn
finite numbers into NaN or Inf (log, sqrt, division, exp, pow, acos, norms and distances,
softmax, ...) and takes part in training (requires a gradient) is measured, where the
tensors live:

- forward: whether the call made a non-finite value out of finite inputs (NaN out of
  inputs without NaN or +inf, or Inf out of finite inputs: log(0), x / 0, exp(100), a
  softmax over a row of -inf; an input already at +inf overflowed upstream, not here);
- backward (a hook on the result's ``grad_fn``): whether the gradient leaving the call is
  non-finite while the gradient reaching it, and the call's forward inputs, were finite.
  This is the trap of an operation whose forward is finite but whose derivative is
  infinite at the edge of its domain: sqrt or a norm at exactly 0, acos at 1; or of a
  non-finite value a ``torch.where`` or ``masked_fill`` hid in the forward (its untaken
  branch gets a zero gradient, and 0 x inf is NaN).

Two ways in. A ``TorchFunctionMode`` is pushed when the model's forward returns and popped
when the optimizer steps: it sees the loss's calls as they are made, each with its call
site (the module running, and the first source line outside torch and nndebug), and it
sees ``loss.backward()`` called. Then, before that backward runs, the rest of the loss's
graph is read (the calls inside the model's forward, whose nodes still hold what they saved
for the backward: their result, or their inputs, from which the result is computed again)
for the forward flags, and a hook goes on each risky node for the backward flag. The mode
is never on during the forward: a forward stopped half-way leaves none of ours behind.

The flags ride along with the step's one host transfer. The births (at most
``BIRTHS_KEPT``) land in ``run.observed.nonfinite_births``: ``[(step, "forward" or
"backward", operation, module or "", source, output non-finite)]`` (a declared field of
``nndebug.observed.Observed``; the source of a call read from the graph is
``MODEL_FORWARD``: no module, no line).

Cost, on the first recorded steps and the schedule's closer looks only (``arm``): a walk
of the loss's graph (at most ``NODES_WALKED`` nodes) and a few reductions per risky node;
from the forward's end to the optimizer's step the mode makes every torch call pass
through Python (the loss: a handful); at most ``CALLS_PER_STEP`` calls measured. Nothing
once ``BIRTHS_KEPT`` births were kept.
"""
import functools
import math
import os
import sys

from .function_modes import OwnedModes
from . import unguarded_logs
from .class_means import ClassMeans
from .self_masked_targets import SelfMaskedTargets   # real-bug batch 85
from .empty_overlaps import EmptyOverlaps
from .fragile_operations import COUNTS, FragileOperations   # real-bug batches 92, 178
from . import mask_indexes                                # real-bug batch 351
from .mask_indexes import INDEXING
from .nonfinite_nodes import NODE_OPERATIONS, flags, forward_order, grad_roots, node_kind
from .nonfinite_nodes import saved_flags, verdict

CALLS_PER_STEP = 64     # [design] risky calls measured per recorded step: a transformer
                        # block makes a handful (softmax, scaling, norms); the first NaN
                        # is made early in the step, by one of the first calls
BIRTHS_KEPT = 8         # [design] births kept over the run: the rule reads the first
FIRST_STEPS_WATCHED = 3   # [design] recorded steps watched before only the schedule's closer
                          # looks are (0, 1, 2: a NaN from the first batches shows there)
FRAMES_WALKED = 12      # [design] Python frames looked at for the caller and its module
NODES_WALKED = 4096     # [design] graph nodes read per backward: a 24-block transformer
                        # makes about 1,000 (a larger graph is read up to this many, from
                        # the loss back: the nodes nearest the loss)
MODEL_FORWARD = "inside the model's forward"   # the source of a call found in the graph

# operations that can make NaN/Inf out of finite numbers, by __name__ (function or method);
# in-place forms are left out (their input is gone when the result is measured)
RISKY = frozenset({
    "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "exp", "exp2", "expm1", "pow",
    "__pow__", "__rpow__", "float_power", "div", "divide", "true_divide", "__truediv__",
    "__rtruediv__", "reciprocal", "acos", "arccos", "asin", "arcsin", "atanh", "arctanh",
    "acosh", "arccosh", "atan2", "arctan2", "norm", "vector_norm", "normalize",
    "pairwise_distance", "cdist", "cosine_similarity", "std", "var", "softmax",
    "log_softmax", "logsumexp", "xlogy"})
_OWN_DIRS = None


def _own_dirs():
    """The folders of torch and nndebug: a call site is the first frame outside them."""
    global _OWN_DIRS
    if _OWN_DIRS is None:
        import torch
        here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        _OWN_DIRS = (os.path.dirname(os.path.abspath(torch.__file__)) + os.sep, here + os.sep)
    return _OWN_DIRS


class NonFiniteOrigins:
    def __init__(self, adapter, observed, model, optimizer=None, on_error=lambda error: None):
        self.adapter, self.observed, self.on_error = adapter, observed, on_error
        self.model, self.optimizer = model, optimizer
        self.enabled = adapter.framework == "torch"
        self.modes = OwnedModes()
        self.calls = []          # [(operation, module, source, forward flags, [backward])]
        self._measured = set()   # ids of the graph nodes of the calls the mode measured
        self._names = None       # id(module) -> its name in the model, made on first use
        self._handles = []
        self.steps_armed = 0     # recorded steps armed so far (FIRST_STEPS_WATCHED)
        self.step = None         # the step armed last
        self.class_means = ClassMeans(observed)   # (batch 75) read before the backward
        self.self_masked = SelfMaskedTargets(observed)   # (batch 85) BCE * its own targets
        self.empty_overlaps = EmptyOverlaps(observed)   # (batch 75) likewise
        self.fragile = FragileOperations(observed)   # (batch 92) NaN that comes later

    def arm(self, step, closer_look=False):
        """The coming step is recorded: the mode goes on when the model's forward returns
        (on the attention mode, if that one is on: ours goes first) and off when the
        optimizer steps (its many small calls need not pay for it), or at ``disarm``.

        Only on the first ``FIRST_STEPS_WATCHED`` recorded steps and on the schedule's
        closer looks (``closer_look``: after a loss jump, or after a NaN, while the
        weights may still be finite): a NaN born on one of the regular sparse records
        later in the run is a coincidence of the step numbers, while those two are where
        a birth shows (a bug that makes NaN from the first batch; a blow-up being
        followed; a NaN a GradScaler keeps skipping, born again every step)."""
        self._drop_stale()
        self.calls, self._measured = [], set()
        self.steps_armed += 1
        self.step = step          # for the unguarded logs met on it (unguarded_logs.py)
        self.fragile.arm(step)    # fragile_operations.py (batch 92)
        if not self.enabled or self.modes.stale or \
                len(self.observed.nonfinite_births) >= BIRTHS_KEPT or \
                (self.steps_armed > FIRST_STEPS_WATCHED and not closer_look):
            return
        try:
            self._handles.append(self.adapter.add_forward_hook(self.model, self._after_forward))
            register = getattr(self.optimizer, "register_step_pre_hook", None)
            if register is not None:
                self._handles.append(register(lambda *_: self._retire()))
        except Exception as error:
            self.enabled = False
            self.on_error(error)

    def _after_forward(self, module, inputs, output):
        """The model's forward is over: push the mode for what follows (the loss, its
        backward). Pushed only now, a forward stopped half-way (an error, Ctrl-C) leaves no
        mode of ours behind."""
        if self.modes.current is None and not self.modes.stale:
            try:
                self.modes.push(_origins_mode(self._on_call, self._before_backward))
            except Exception as error:
                self.modes.current, self.enabled = None, False
                self.on_error(error)

    def _before_backward(self, loss):
        """``loss.backward()`` is about to run: read the rest of the loss's graph (the
        calls inside the model's forward, and any the mode did not see), in the order the
        forward made them, before the calls the mode measured (they came after)."""
        import torch
        try:
            self.class_means.before_backward(self.step, loss)   # batch 75 (class_means.py)
            self.empty_overlaps.before_backward(self.step, loss)   # (empty_overlaps.py)
            self.self_masked.before_backward(self.step, loss)   # (self_masked_targets.py)
        except Exception as error:
            self.on_error(error)
        walked = []
        for node in forward_order(grad_roots(loss), NODES_WALKED):
            operation = NODE_OPERATIONS.get(node_kind(node))
            if operation in unguarded_logs.LOG_OPERATIONS and id(node) not in self._measured:
                unguarded_logs.note(self.observed, self.step, operation, node,
                                    _saved_dtype(node), MODEL_FORWARD)
            if operation is not None and id(node) not in self._measured:
                self.fragile.on_node(operation, node, _saved_dtype(node), MODEL_FORWARD)
            if operation is None or id(node) in self._measured or \
                    len(walked) + len(self.calls) >= CALLS_PER_STEP:
                continue
            with torch._C.DisableTorchFunction():
                measured = saved_flags(operation, node)
            if measured is not None:
                backward = []
                walked.append((operation, "", MODEL_FORWARD, measured, backward))
                node.register_hook(functools.partial(_on_backward, backward))
        self.calls = walked + self.calls

    def disarm(self):
        for handle in self._handles:
            handle.remove()
        self._handles = []
        self._retire()

    def _retire(self):
        self.fragile.release()    # fragile_operations.py: the step's std/var results go
        try:
            self.modes.retire()
        except Exception as error:
            self.enabled = False
            self.on_error(error)

    def _drop_stale(self):
        try:
            self.modes.drop_stale()
        except Exception as error:
            self.enabled = False
            self.on_error(error)

    # --- inside the user's step ------------------------------------------------------------
    def _on_call(self, name, args, kwargs, result):
        """A risky call returned ``result``: measure it (device values only, no transfer)."""
        import torch
        if name in INDEXING:       # batch 351: a 0/1 mask read as positions
            mask_indexes.note(self.observed, self.step, name, args, kwargs,
                              lambda: self._call_site()[1])
            return
        out = result[0] if isinstance(result, (tuple, list)) and result else result
        # batch 92: divisions by a bare std (tensors without a gradient too: advantages),
        # fractional powers of probabilities, logs of summed exps
        self.fragile.on_call(name, args, out, lambda: self._call_site()[1])
        if name not in RISKY:
            return                 # a sum: kept for the division test only (batch 178)
        if len(self.calls) >= CALLS_PER_STEP or not isinstance(out, torch.Tensor) or \
                not out.requires_grad or not out.is_floating_point():
            return
        inputs = [a for a in list(args[:2]) + [kwargs.get("input"), kwargs.get("other")]
                  if isinstance(a, torch.Tensor) and a.is_floating_point()]
        with torch._C.DisableTorchFunction():
            measured = flags(out, inputs)
        module, source = self._call_site()
        if name in unguarded_logs.LOG_OPERATIONS:
            unguarded_logs.note(self.observed, self.step, name, out.grad_fn, out.dtype, source)
        backward = []
        self.calls.append((name, module, source, measured, backward))
        if out.grad_fn is not None:
            self._measured.add(id(out.grad_fn))
            out.grad_fn.register_hook(functools.partial(_on_backward, backward))

    def _call_site(self):
        """(the model's module whose forward made the call or None, "file:line")."""
        if self._names is None:
            self._names = {id(m): name for name, m in self.model.named_modules()}
        own = _own_dirs()
        frame, source, module = sys._getframe(2), None, None
        for _ in range(FRAMES_WALKED):
            if frame is None:
                break
            path = frame.f_code.co_filename
            if source is None and not path.startswith(own):
                source = f"{os.path.basename(path)}:{frame.f_lineno}"
            if source is not None:
                owner = frame.f_locals.get("self")
                if owner is not None and id(owner) in self._names:
                    module = self._names[id(owner)] or type(owner).__name__
                    break
            frame = frame.f_back
        return module, source or ""

    # --- the step's one transfer -------------------------------------------------------------
    def pack(self, packet):
        for index, (_, _, _, measured, backward) in enumerate(self.calls):
            packet.add(("origin", index, "forward"), measured)
            if backward:
                packet.add(("origin", index, "backward"), backward[0])

    def take(self, values, record):
        births = self.observed.nonfinite_births
        kept = {phase for step, phase, *_ in births if step == record.step}
        for index, (name, module, source, _, _) in enumerate(self.calls):
            forward = values.get(("origin", index, "forward"))
            backward = values.get(("origin", index, "backward"))
            if forward is None:
                continue
            made, output_nonfinite, finite_inputs = verdict(forward)
            # a backward birth counts where the call's forward inputs were finite: on a step
            # already NaN, a gradient that does not depend on the values (a loss's) arrives
            # finite and leaves NaN without anything being born there
            phases = (("forward", made),
                      ("backward", None if backward is None or not finite_inputs
                       else _born_in_backward(backward)))
            for phase, born in phases:
                if born and phase not in kept and len(births) < BIRTHS_KEPT:
                    births.append((record.step, phase, name, module or "", source,
                                   bool(output_nonfinite)))
                    kept.add(phase)
        self.calls = []


def _saved_dtype(node):
    """The dtype of the input a log node saved (float32 when it cannot be read)."""
    import torch
    try:
        return node._saved_self.dtype
    except (AttributeError, RuntimeError):
        return torch.float32


def _born_in_backward(sums):
    """The gradient reaching the call was finite and the one leaving it was not."""
    received, passed = float(sums[0]), float(sums[1])
    return math.isfinite(received) and not math.isfinite(passed)


def _gradient_sum(gradients):
    """One number that is finite exactly when every gradient is (NaN and inf survive sums)."""
    import torch
    total = gradients[0].sum(dtype=torch.float32)
    for gradient in gradients[1:]:
        total = total + gradient.sum(dtype=torch.float32)
    return total


def _on_backward(store, grad_inputs, grad_outputs):
    """A risky call's backward ran: the sums of the gradient it received and of the one it
    passed on, kept on the device for the step's transfer (``_born_in_backward`` reads
    them). The first backward through the call is the one measured."""
    import torch
    if store:
        return
    try:
        with torch._C.DisableTorchFunction():
            received = [g for g in grad_outputs if g is not None]
            passed = [g for g in grad_inputs if g is not None]
            if received and passed:
                store.append(torch.stack([_gradient_sum(received), _gradient_sum(passed)]))
    except Exception:             # a measurement never breaks the user's backward
        pass


def _origins_mode(on_call, before_backward):
    return _origins_class()(on_call, before_backward)


@functools.lru_cache(maxsize=None)
def _origins_class():
    from torch.overrides import TorchFunctionMode

    class OriginsWatch(TorchFunctionMode):
        active = True

        def __init__(self, on_call, before_backward):
            super().__init__()
            self.on_call, self.before_backward = on_call, before_backward

        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            name = getattr(func, "__name__", None)
            if self.active and name == "backward" and args:
                try:
                    self.before_backward(args[0])
                except Exception:      # a measurement never breaks the user's step
                    self.active = False
            result = func(*args, **kwargs)
            if self.active and (name in RISKY or name in COUNTS or name in INDEXING):
                try:
                    self.on_call(name, args, kwargs, result)
                except Exception:
                    self.active = False
            return result
    return OriginsWatch
