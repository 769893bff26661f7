"""What an optimizer that already holds state carries into the watched run, and whether it
fits the weights it now updates (OPTIMIZER_STATE_FROM_EARLIER_RUN,
``nndebug.rules.carried_run_state``; real-bug batch 100).

An optimizer can hold momentum buffers or Adam moments when watching starts for healthy
reasons: a resume, a second phase of one training (a new task after the first, a copy of a
model fitted a little), training continued after an evaluation. It is a bug when the state
was gathered on OTHER weights: a cross-validation or a search that re-initialises the
model for each fold but reuses the optimizer (keras-team/keras#454). Two things tell them
apart, both read once:

- the model's largest weight at watch start still looks like a fresh initialisation
  (``rules.structure.looks_freshly_initialised``, as FROZEN_PARAMETERS judges): a second
  task or phase starts from trained weights;
- the carried buffer (SGD's ``momentum_buffer``, Adam's ``exp_avg``: both an average of
  recent gradients, with their sign) against the first gradient of the watched run, as a
  cosine over ``SAMPLED`` fixed entries. A run that goes on along its own path has a
  buffer that points where its gradient points (a positive cosine); a buffer gathered on a
  previous fold's weights is unrelated to a fresh draw's gradient (a cosine near 0).

Kept in ``run.observed.carried_state`` as ``(parameter name, initialiser it looks like or
"", cosine of carried buffer and first gradient)``. Cost: nothing unless the optimizer held
state at watch start; then one step pre-hook that reads once (one small host read) and
returns at once after that.
"""
import math

from ..observed import FrozenTensor
from .settings import holds_state
from .slow_group_weights import _statistics
from .structure import _fans

SAMPLED = 4096   # [design] entries compared: two unrelated directions give a cosine of
                 # about +-1/sqrt(4096) = 0.016 (one standard deviation)
BUFFERS = ("momentum_buffer", "exp_avg")   # [framework docs] torch.optim.SGD's and Adam's /
                                           # AdamW's running average of gradients


class CarriedState:
    def __init__(self, adapter, observed, model, optimizer, on_error):
        self.observed, self.on_error = observed, on_error
        self._handle, self._watched = None, None
        register = getattr(optimizer, "register_step_pre_hook", None)
        if adapter.framework != "torch" or register is None or model is None or \
                not holds_state(optimizer):
            return
        try:
            watched = _largest_weight_with_buffer(model, optimizer)
            if watched is None:
                return
            name, parameter, buffer = watched
            shapes = {n: tuple(p.shape) for n, p in model.named_parameters()}
            self._watched = (name, parameter, _sampled(buffer).clone(),
                             _looks_fresh(adapter, name, parameter, shapes))
            self._handle = register(self._first_step)
        except Exception as error:          # never break the user's watch
            self._watched = None
            on_error(error)

    def _first_step(self, optimizer, args, kwargs):
        """Once, before the first watched step: the first gradient against the buffer.
        (The hook stays registered, doing nothing, until close: torch iterates its hooks
        while this one runs, and removing it here would break the user's step.)"""
        watched, self._watched = self._watched, None
        if watched is None:
            return None
        name, parameter, buffer, fresh = watched
        try:
            grad = parameter.grad
            if grad is not None and grad.shape == parameter.shape:
                cosine = _cosine(buffer, _sampled(grad.detach()))
                if math.isfinite(cosine):
                    self.observed.carried_state.append((name, fresh, cosine))
        except Exception as error:          # never break the user's step
            self.on_error(error)
        return None

    def close(self):
        if self._handle is not None:
            self._handle.remove()
            self._handle = None


def _largest_weight_with_buffer(model, optimizer):
    """(name, parameter, carried buffer) of the largest floating weight of 2+ dimensions
    whose optimizer state holds a running average of its gradients, or None."""
    state = optimizer.state
    found = None
    for name, p in model.named_parameters():
        if p.dim() < 2 or not p.is_floating_point():
            continue
        entry = state.get(p) if hasattr(state, "get") else None
        buffer = next((entry[key] for key in BUFFERS
                       if entry and getattr(entry.get(key), "shape", None) == p.shape), None)
        if buffer is not None and (found is None or p.numel() > found[1].numel()):
            found = (name, p, buffer)
    return found


def _sampled(tensor):
    """SAMPLED evenly spaced entries of ``tensor`` (all of a smaller one), as float32."""
    flat = tensor.detach().reshape(-1)
    stride = max(1, flat.numel() // SAMPLED)
    return flat[::stride][:SAMPLED].float()


def _cosine(a, b):
    import torch
    norms = float(torch.linalg.vector_norm(a)) * float(torch.linalg.vector_norm(b))
    return float(torch.dot(a, b)) / norms if norms > 0 else float("nan")


def _looks_fresh(adapter, name, parameter, shapes):
    """The initialiser the weight still looks like at watch start, or ""."""
    from ..rules.structure import looks_freshly_initialised
    mean, std, absmax, kurtosis, measured, spread, units = _statistics(adapter, parameter)
    fan_in, fan_out = _fans(name, tuple(parameter.shape), shapes)
    tensor = FrozenTensor(name=name, shape=tuple(parameter.shape), fan_in=fan_in,
                          fan_out=fan_out, mean=mean, std=std, absmax=absmax,
                          kurtosis=kurtosis, unit_spread=spread if units else None,
                          unit_rows=units, measured=measured)
    return looks_freshly_initialised(tensor) or ""
