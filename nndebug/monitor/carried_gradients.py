"""Gradients a backward pass in eval mode left in ``.grad``, added to a training step's own.

A validation loop that calls ``loss.backward()`` (one helper computes the loss for training
and validation, and only the optimizer step is skipped for validation) leaves the
validation set's gradients in ``.grad``; when the loop zeroes gradients only after each
optimizer step, the next training backward adds its own to them, and that step trains on
the validation data. It happens on the one step after each validation, which the sparse
records almost never catch.

So one tensor hook on one trainable parameter stays on for the whole run (called once per
backward pass: a Python call and an attribute read). It notes backward passes that run
while the watched model is in eval mode; the first backward in train mode after them looks
at the parameter's ``.grad`` before its own gradient is added: still holding a non-zero
gradient, the eval-mode gradients are about to be added to a training step's, and that
step is kept in ``run.observed.carried_eval_gradients``. The non-zero test reads the tensor
(a host sync on an accelerator), but only on those rare steps.

The same hook counts the backward passes of each step (``backwards_in``), which
``optimizer_steps.py`` compares with the optimizer's steps.

Healthy loops stay quiet: validation under ``no_grad()`` runs no backward; an adversarial or
saliency backward in eval mode followed by ``zero_grad()`` leaves nothing to add; a model
trained in eval mode throughout (frozen batch norm) never switches to train mode.
"""

MAX_STEPS_KEPT = 64     # [design] steps noted; the rule needs a few, the evidence shows 20


class CarriedGradients:
    def __init__(self, adapter, observed, parameters, current_step, on_error):
        self.adapter, self.observed = adapter, observed
        self.root = adapter.model
        self._current_step, self._on_error = current_step, on_error
        self._eval_backwards = 0       # eval-mode backward passes since the last train one
        self._counted_step, self._backwards = None, 0     # backward passes of that step
        self.parameter = next((p for p in parameters if adapter.requires_grad(p)), None)
        self._handle = None if self.parameter is None else \
            adapter.add_tensor_hook(self.parameter, self._on_gradient)

    def backwards_in(self, step):
        """Backward passes that reached the hooked parameter since ``step()`` closed the
        step before ``step``."""
        return self._backwards if self._counted_step == step else 0

    def _on_gradient(self, grad):
        step = self._current_step()
        if step != self._counted_step:
            self._counted_step, self._backwards = step, 0
        self._backwards += 1
        if not self.root.training:
            self._eval_backwards += 1
            return
        if not self._eval_backwards:
            return
        self._eval_backwards = 0
        try:
            held = self.adapter.grad_of(self.parameter)
            steps = self.observed.carried_eval_gradients
            if held is not None and held.size and (held != 0).any() and \
                    len(steps) < MAX_STEPS_KEPT:
                steps.append(int(step))
        except Exception as error:      # never break the user's backward
            self._on_error(error)

    def close(self):
        if self._handle is not None:
            self._handle.remove()
            self._handle = None
