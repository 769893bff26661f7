"""What the optimizer holds when a run resumes from a checkpoint (``mon.load_state_dict``):
OPTIMIZER_STATE_NOT_RESTORED and SCHEDULER_RESTARTED_ON_RESUME
(``nndebug.rules.resumed_state``).

Resuming means restoring the model, the optimizer's state (Adam's moments and step count,
SGD's momentum buffers) and the scheduler's step count. A resume that loads the optimizer's
state and then builds the optimizer again (or never loads it) starts a trained model under
an empty optimizer: Adam's first bias-corrected steps move every weight by about the full
learning rate, whatever its gradient. Nothing raises.

Armed only by a resume (``resuming()``, called by ``Monitor.load_state_dict``): one global
optimizer pre-step hook and one post-step hook (``torch.optim.optimizer``) wait for the first
step of an optimizer holding the watched parameters, note whether it held per-parameter
state before that step and whether it holds some after it (a stateless optimizer, plain SGD,
has nothing to restore), read the schedulers driving it and the steps each has counted
(``schedulers.py``: the caller's frames, else one search of the heap, once per resume; a
scheduler built anew counts none), and are removed: a run that never resumes pays nothing,
a resumed one that reading on one step. Kept in ``run.observed.resumed_optimizers`` as
``(step resumed at, optimizer class, state before its first step, state after it,
[[scheduler class, steps counted], ...])`` (a declared field of
``nndebug.observed.Observed``: saved and loaded with the run).
"""
from .optimizer_restarts import watched_held
from .schedulers import observe_schedulers


class ResumedOptimizers:
    def __init__(self, adapter, observed, parameters, current_step, on_error):
        self.observed, self._current_step, self._on_error = observed, current_step, on_error
        self._torch = adapter.framework == "torch"
        self._watched = {id(p) for p in parameters}
        self._handles = []
        self._pending = None      # (optimizer, step, state held, schedulers) until its post-step

    def resuming(self):
        """The run continues a saved one: watch the next optimizer step."""
        if not self._torch or not self._watched or self._handles:
            return
        try:
            from torch.optim.optimizer import (register_optimizer_step_post_hook,
                                               register_optimizer_step_pre_hook)
            self._handles = [register_optimizer_step_pre_hook(self._before_step),
                             register_optimizer_step_post_hook(self._after_step)]
        except Exception as error:        # a torch without global optimizer hooks
            self._on_error(error)

    def _before_step(self, optimizer, args, kwargs):
        try:
            if self._pending is None and watched_held(optimizer, self._watched):
                self._pending = (optimizer, self._current_step(), holds_state(optimizer),
                                 [[s.type, s.calls] for s in observe_schedulers(optimizer)])
        except Exception as error:        # never break the user's step
            self._on_error(error)

    def _after_step(self, optimizer, args, kwargs):
        if self._pending is None or self._pending[0] is not optimizer:
            return
        try:
            _, step, before, schedulers = self._pending
            self.observed.resumed_optimizers.append(
                (step, type(optimizer).__name__, before, holds_state(optimizer), schedulers))
        except Exception as error:
            self._on_error(error)
        self.close()

    def close(self):
        for handle in self._handles:
            handle.remove()
        self._handles, self._pending = [], None


def holds_state(optimizer):
    """Whether the optimizer keeps some per-parameter state now (moments, momentum buffers)."""
    return any(bool(state) for state in optimizer.state.values())
