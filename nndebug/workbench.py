"""The private float64 copy that gradient checks work on, and the checks on their inputs.

Every check (gradcheck, locate) follows the same discipline, kept here in one place:

* the user's model is never run: a deep copy in float64 is (``Adapter.private_copy``),
  with the user's own forward and backward hooks on it, so it computes what the model
  computes; inputs and targets are copied too, integer data kept integer;
* the RNGs are forked and replayed before every evaluation, so dropout draws the same
  mask each time and the model is a deterministic function of its parameters;
* everything the user could see - parameters, buffers, grads, flags, modes, hooks,
  RNG states, the default dtype - is captured first and put back at the end, also
  when a check raises (``Adapter.preserved``).
"""
import contextlib

import numpy as np

from . import validation
from .adapters import adapt


class Workbench:
    """A private copy of one (model, inputs, targets, loss_fn) problem, open for checks."""

    def __init__(self, model, inputs, targets, loss_fn, *, seed=0, dtype=np.float64):
        self.user = adapt(model)
        validation.problem(self.user, inputs, targets, loss_fn)
        seed = validation.seed(seed)
        self.dtype = np.dtype(dtype)
        if self.dtype.kind != "f":
            raise TypeError(f"checks run in a float dtype, got {self.dtype}")
        self.seed = int(seed)
        self.raw_inputs, self.raw_targets, self.loss_fn = inputs, targets, loss_fn
        self.n_forward = 0
        self.work = None

    @contextlib.contextmanager
    def opened(self):
        """Make the private copy; on exit put every piece of the user's state back."""
        with self.user.preserved():
            _check_finite(self.user, self.raw_inputs, "inputs")
            _check_finite(self.user, self.raw_targets, "targets")
            self.work = self.user.private_copy(self.dtype)
            with self.work.default_dtype(self.dtype), self.work.forked_rng(self.seed) as replay:
                self._replay, self._random = replay, None
                self.inputs = self.work.private_inputs(self.raw_inputs)
                self.targets = self.work.private_inputs(self.raw_targets)
                yield self

    # --- what can be checked ---------------------------------------------------------
    def input_slots(self):
        """[(display name, private input tensor)] for float inputs the user marked requires_grad."""
        user_leaves = self.user.float_leaves(self.raw_inputs)
        private = self.work.float_leaves(self.inputs)
        marked = [i for i, t in enumerate(user_leaves) if self.user.leaf_requires_grad(t)]
        if len(private) != len(user_leaves):   # NumPy arrays count as leaves only once prepared
            return []
        name = (lambda i: "input") if len(private) == 1 else (lambda i: f"input[{i}]")
        return [(name(i), private[i]) for i in marked]

    def parameter_slots(self):
        """[(qualified name, private parameter)] for every trainable parameter."""
        return [(n, p) for n, p in self.work.named_parameters() if self.work.requires_grad(p)]

    # --- evaluations (each one counted) -------------------------------------------------
    def replay(self):
        """Put the RNGs back to the forked seed - unless the model draws no random numbers.

        The first evaluation finds out: if it left every generator as it found it, the
        model is deterministic and resetting the generators (a few 100 us each time on
        torch) is skipped from then on.
        """
        if self._random is not False:
            self._replay()

    def _evaluate(self, fn, *args, **kwargs):
        self.replay()
        self.n_forward += 1
        before = self.work.get_rng_state() if self._random is None else None
        result = fn(*args, **kwargs)
        if before is not None:
            self._random = not self.work.rng_equal(before, self.work.get_rng_state())
        return result

    def loss(self):
        return self._evaluate(self.work.loss_value, self.inputs, self.targets, self.loss_fn)

    def loss_and_grads(self, *, wrt_inputs=False, grad_scale=1.0):
        if self.n_forward == 0:   # the first pass is where dtype mix-ups show
            with validation.explain_forward_error(self.user, self.raw_inputs, self.raw_targets):
                return self._evaluate(self.work.loss_and_grads, self.inputs, self.targets,
                                      self.loss_fn, wrt_inputs=wrt_inputs, grad_scale=grad_scale)
        return self._evaluate(self.work.loss_and_grads, self.inputs, self.targets, self.loss_fn,
                              wrt_inputs=wrt_inputs, grad_scale=grad_scale)

    def record(self, *, record_primitives=False):
        return self._evaluate(self.work.record_calls, self.inputs, self.targets, self.loss_fn,
                              record_primitives=record_primitives)


def require_finite_loss(value):
    if not np.isfinite(value):
        raise ValueError(
            f"the loss is {value} before anything was changed, so gradients cannot be checked; "
            "look for log of 0 or of a negative number, division by zero, or overflowing "
            "logits (nndebug check reports NAN_LOSS with more detail)")


def _check_finite(adapter, value, what):
    """A clear error for NaN/Inf in the data, instead of a meaningless comparison later."""
    for leaf in _numeric_leaves(adapter, value):
        array = np.asarray(leaf)
        if array.dtype.kind == "f" and not np.all(np.isfinite(array)):
            bad = int(np.size(array) - np.count_nonzero(np.isfinite(array)))
            code = "NAN_IN_INPUTS" if what == "inputs" else "NAN_IN_DATA"
            raise ValueError(f"the {what} contain {bad} NaN or Inf value(s) ({code}); gradients "
                             f"cannot be checked on them - clean or impute the data first")


def _numeric_leaves(adapter, value):
    if isinstance(value, (tuple, list)):
        return [leaf for v in value for leaf in _numeric_leaves(adapter, v)]
    if isinstance(value, dict):
        return [leaf for v in value.values() for leaf in _numeric_leaves(adapter, v)]
    if value is None or isinstance(value, (str, bytes)):
        return []
    try:
        return [adapter.to_numpy(value)]
    except Exception:   # not array-like: the model will say what it expected
        return []
