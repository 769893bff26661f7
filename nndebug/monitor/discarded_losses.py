"""Loss values a training step computed and never back-propagated (LOSSES_NOT_BACKPROPAGATED,
``nndebug.rules.discarded_losses``).

A loop that scores its batch piece by piece (one image, one time step, one micro-batch
at a time) must add the pieces' losses before ``backward()``, or call ``backward()`` on
each. Written as ``loss = loss_fn(...)`` inside the loop and ``loss.backward()`` after it,
only the last piece trains; written with the backward inside an ``if`` that is true on
one micro-batch in four, three in four are thrown away. Nothing fails: the model still
learns, from a fraction of its data, with a batch of one's noisy steps.

What it sees (torch, the first ``OBSERVED_STEPS`` recorded steps):
- every forward pass of the model in training mode with gradients on (one forward hook);
- every call of a loss module outside the model, or of a loss function (the calls the
  monitor's loss capture already sees), in training mode, whose input requires a
  gradient: a hook on that input marks whether backward reached it.
When the step ends it keeps ``(step, forward passes, loss calls, loss calls reached,
elements the forward passes output, elements the loss calls read)`` in
``run.observed.discarded_losses``. The input is watched, not the loss value: a metric
computed with a loss function beside the trained loss (an L1 printed next to an MSE)
reads an input that the trained loss reaches, and is no discarded loss. The element
counts tell pieces from repeats: a loop over images or time steps scores each output
element once (read <= output), a loss that tries several permutations of one output and
keeps the best scores it several times (read > output).

Cost: on the first few recorded steps, one hook per forward pass and one per loss call;
nothing after them.
"""
from .loss_reductions import output_tensors

OBSERVED_STEPS = 3      # [design] recorded steps read: a loop discards the same losses on
                        # every step


class DiscardedLosses:
    """Counts the loss calls of the first recorded steps that backward reached (see the
    module doc)."""

    def __init__(self, adapter, observed, on_error):
        self.adapter, self.observed, self.on_error = adapter, observed, on_error
        self.enabled = adapter.framework == "torch"
        self.steps_read = 0
        self._step = None           # the recorded step being read, None between them
        self._forwards = 0
        self._produced = 0          # elements output by this step's training forwards
        self._calls = []            # one [reached, elements read] cell per loss call
        self._handle = None

    def arm(self, step):
        """A recorded step starts: read it while fewer than OBSERVED_STEPS were read."""
        if not self.enabled or self.steps_read >= OBSERVED_STEPS or step is None:
            return
        self._step, self._forwards, self._produced, self._calls = int(step), 0, 0, []
        try:
            self._handle = self.adapter.add_forward_hook(self.adapter.model, self._on_forward)
        except Exception as error:      # a model without forward hooks: nothing is read
            self.enabled, self._step = False, None
            self.on_error(error)

    def disarm(self):
        """The step ended (its backward passes are over): keep what it showed."""
        if self._handle is not None:
            self._handle.remove()
            self._handle = None
        if self._step is not None:
            self.steps_read += 1        # read or not, a recorded step gone (a loss computed
            if self._calls:             # inside the model is never seen: stop looking)
                reached = sum(1 for cell in self._calls if cell[0])
                self.observed.discarded_losses.append(
                    (self._step, self._forwards, len(self._calls), reached, self._produced,
                     sum(cell[1] for cell in self._calls)))
        self._step, self._calls = None, []

    def _on_forward(self, module, inputs, output):
        import torch
        if module.training and torch.is_grad_enabled():
            self._forwards += 1
            self._produced += sum(t.numel() for t in output_tensors(output))

    def offer(self, loss_input):
        """A loss was called on ``loss_input`` (the model's output, as the loss reads it)."""
        if self._step is None:
            return
        try:
            if not getattr(loss_input, "requires_grad", False) or \
                    not self.adapter.model.training:
                return                  # an evaluation call: nothing to back-propagate
            cell = [False, loss_input.numel()]

            def reached(grad, cell=cell):
                cell[0] = True

            loss_input.register_hook(reached)
            self._calls.append(cell)
        except Exception as error:      # never break the user's step
            self.on_error(error)
