"""The weights before the update, taken again when the optimizer starts its step.

A recorded step's update is the weights before it minus the weights after it. "Before" is
copied when the step's hooks go on, at the end of the previous ``step()``; whatever the loop
writes into the weights between that moment and ``optimizer.step()`` was counted as part of
the update. Most loops write nothing there. A loop that starts training again from scratch
does: an active-learning round, a cross-validation fold or a restart that calls
``reset_parameters()`` on the watched model (real-bug batch 143) puts a fresh draw of the
weights in place, and the recorded update of that step was the whole re-initialisation,
141% of the weights, read as LR_TOO_HIGH on a healthy run.

A step pre-hook on the watched optimizer copies the weights again, into the same buffers,
at the first ``optimizer.step()`` of a recorded step: the update is then what the
optimizer did. Without such a hook (minigrad's optimizers, an optimizer-free loop, an
optimizer that never steps in that interval) the copy taken when the hooks went on stays.
Writes between steps are followed on their own (``rewritten_weights.py``).

The same hook notes which tensor each parameter's ``.grad`` is and its in-place version
counter. The monitor reads ``.grad`` when the recorded step closes (watch's ``step()``),
after the optimizer's step; a gradient emptied in place in between - an optimizer written
by hand whose step clears the gradients it used (real-bug batch 322's Adagrad), or
``zero_grad(set_to_none=False)`` before watch's ``step()`` - holds zeros that say nothing of
what the step used, and was read as gradients clipped to nothing (GRADIENTS_CLIPPED_AWAY)
on a healthy run. ``written_after_step`` names those parameters; a clip before the step
changes ``.grad`` before the hook and is still seen.

Cost: one more copy of the trainable weights per recorded step (a memcpy of the model's
size, into buffers that already exist), one hook added and removed per recorded step, and
two attribute reads per parameter when the optimizer steps.
"""


class SnapshotBeforeOptimizerStep:
    """Re-takes ``hooks.snapshot`` at the watched optimizer's first step of a recorded step."""

    def __init__(self, adapter, hooks, optimizer, on_error):
        self.hooks, self.on_error = hooks, on_error
        self._register = getattr(optimizer, "register_step_pre_hook", None) \
            if adapter.framework == "torch" else None
        self._handle = None
        self._taken = False
        self._grads = None     # [(.grad, its version) or None] per parameter, at the step

    def arm(self):
        """The step's hooks went on (their copy is taken): watch for the optimizer's step."""
        self._taken = False
        self._grads = None
        if self._register is None or self._handle is not None:
            return
        try:
            self._handle = self._register(self._before_step)
        except Exception as error:        # an optimizer whose hooks do not work
            self._register = None
            self.on_error(error)

    def _before_step(self, optimizer, args, kwargs):
        # never removed from inside the hook: torch iterates over the hooks while they run
        if self._taken or not self.hooks.armed:
            return None
        self._taken = True
        try:
            self.hooks.retake_snapshot()
            self._grads = [None if p.grad is None else (p.grad, p.grad._version)
                           for p in self.hooks.params]
        except Exception as error:        # never break the user's step
            self.on_error(error)
        return None

    def written_after_step(self, params):
        """Indices of ``params`` whose ``.grad`` is the tensor it was when the optimizer's
        step began and was written in place since (cleared by the step itself or by a
        ``zero_()`` after it); empty when the step was not seen."""
        if self._grads is None or len(self._grads) != len(params):
            return []
        return [i for i, (p, seen) in enumerate(zip(params, self._grads))
                if seen is not None and p.grad is seen[0] and p.grad._version != seen[1]]

    def disarm(self):
        """The recorded step closed (or the monitor did): the hook goes."""
        if self._handle is not None:
            self._handle.remove()
            self._handle = None
