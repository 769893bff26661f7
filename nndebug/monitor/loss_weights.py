"""The weight each optimizer step gives the mean training loss (LR_TOO_LOW,
``nndebug.rules.learning_rate``, real-bug batch 74).

Gradient accumulation divides each micro-batch's loss by the number of micro-batches, so
that the optimizer steps on the gradient of the mean loss. A loop (or a trainer) that
divides once more - the module returns ``loss / N`` and the trainer divides the returned
loss by N again - hands the optimizer 1/N of that gradient: for SGD, the learning rate
divided by N, and nothing in the logged loss shows it.

What it sees (torch, the first ``OBSERVED_STEPS`` recorded steps, which are consecutive:
steps 0, 1, 2, 3): each training call of a loss module whose output is one number
(``reduction='mean'``) gets a hook on that output. Backward hands the hook d(what
backward started from) / d(this loss): the weight the call's loss carries into the
gradients (1 for a plain step, 1/N per micro-batch for an accumulation over N). A post-hook
on the optimizer's step closes the sum: the weights of the calls since the previous
optimizer step, per loss module, kept when every call since then was seen (the windows
in between were all observed). The weights stay where backward made them; ``read()``
copies them to the host once, when findings are asked for, into
``run.observed.loss_weights``: ``[(step, largest summed weight of one loss module)]``.

Healthy loops give about 1 (accumulation divided once, a loss split over several calls of
one criterion); a ``GradScaler`` gives its scale (far above 1); a loss computed and never
back-propagated gives 0 (LOSSES_NOT_BACKPROPAGATED's business). Losses called as
functions and sum/none reductions are not looked at.

Cost: on the first few recorded steps, one tensor hook per loss call and one optimizer
hook; no host transfer until findings; nothing after them.
"""
OBSERVED_STEPS = 4      # [design] recorded steps read: 0-3 are recorded one after another,
                        # so an accumulation over up to 3 watched steps is seen whole
KEPT_STEPS = 8          # [design] optimizer steps whose weights are kept, at most


class LossWeights:
    """Sums the weights the loss calls carry into each optimizer step (see the module doc)."""

    def __init__(self, adapter, observed, optimizer, on_error):
        self.observed, self.optimizer, self.on_error = observed, optimizer, on_error
        self.model = adapter.model
        self.enabled = adapter.framework == "torch" and \
            hasattr(optimizer, "register_step_post_hook")
        self.steps_read = 0
        self._step = None            # the recorded step being read, None between them
        self._last_read = None       # the last recorded step read
        self._whole = False          # every call since the previous optimizer step was seen
        self._pending = []           # [(module id, gradient tensor)] since that step
        self._kept = []              # [(step, [(module id, gradient tensor)])]
        self._handle = None

    def arm(self, step):
        """A recorded step starts: read it while fewer than OBSERVED_STEPS were read."""
        if not self.enabled or self.steps_read >= OBSERVED_STEPS or step is None:
            return
        step = int(step)
        if step == 0 or self._last_read is None or step != self._last_read + 1:
            self._whole = step == 0      # watched from the start, or a gap: unknown calls
            self._pending = []
        self._step = step
        try:
            self._handle = self.optimizer.register_step_post_hook(self._after_step)
        except Exception as error:      # an optimizer without step hooks: nothing is read
            self.enabled, self._step = False, None
            self.on_error(error)

    def disarm(self):
        if self._handle is not None:
            self._handle.remove()
            self._handle = None
        if self._step is not None:
            self.steps_read += 1
            self._last_read = self._step
            if self.steps_read >= OBSERVED_STEPS:
                self._pending = []       # hooks still set add to a list nothing reads
        self._step = None

    def offer(self, module, output, reduction):
        """A loss module outside the model was called: ``output`` is what it returned."""
        if self._step is None or reduction not in (None, "mean"):
            return
        try:
            if not getattr(output, "requires_grad", False) or output.dim() != 0 or \
                    not self.model.training:
                return                   # an evaluation call, or not one number
            pending, key = self._pending, id(module)

            def weight(grad, pending=pending, key=key):
                pending.append((key, grad.detach()))

            output.register_hook(weight)
        except Exception as error:       # never break the user's step
            self.on_error(error)

    def _after_step(self, optimizer, args, kwargs):
        try:
            if self._whole and self._pending and len(self._kept) < KEPT_STEPS:
                self._kept.append((self._step, self._pending))
            self._pending, self._whole = [], True
        except Exception as error:
            self.on_error(error)

    def read(self):
        """Copy the kept weights to the host (once per optimizer step kept)."""
        if not self._kept:
            return
        try:
            import torch
            kept, self._kept = self._kept, []
            values = torch.stack([g.reshape(()).float() for _, calls in kept
                                  for _, g in calls]).tolist()
            at = 0
            for step, calls in kept:
                sums = {}
                for key, _ in calls:
                    sums[key] = sums.get(key, 0.0) + values[at]
                    at += 1
                self.observed.loss_weights.append((int(step), float(max(sums.values()))))
        except Exception as error:
            self.on_error(error)
