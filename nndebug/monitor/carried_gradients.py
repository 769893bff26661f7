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
``optimizer_steps.py`` compares with the optimizer's steps, and the train-mode ones of the
whole run (``observed.train_backward_total``: a multiple of the steps when gradients are
accumulated, which a schedule sized in micro-batches is read against,
``rules/schedule_length.py``).

The mirror case (real-bug batch 102): a backward in eval mode after a backward in train mode
of the same watched step, finding ``.grad`` still holding that training gradient, adds an
eval-mode gradient into the update being accumulated - micro-batches after the first run
in eval mode when a metrics helper switches the model to eval and only the start of each
batch switches it back. When the model has dropout or batch-norm layers in eval mode then,
the step and those layers are kept in ``run.observed.eval_mode_accumulations`` (the grad
read happens only on such a backward: never in a loop that keeps one mode per step).

Healthy loops stay quiet: validation under ``no_grad()`` runs no backward; an adversarial or
saliency backward in eval mode followed by ``zero_grad()`` leaves nothing to add; a model
trained in eval mode throughout (frozen batch norm) never switches to train mode.
"""

from ..records import BATCHNORM_TYPES, DROPOUT_TYPES

MAX_STEPS_KEPT = 64     # [design] steps noted; the rule needs a few, the evidence shows 20


class CarriedGradients:
    def __init__(self, adapter, observed, parameters, current_step, on_error):
        self.adapter, self.observed = adapter, observed
        self.root = adapter.model
        self._current_step, self._on_error = current_step, on_error
        self._eval_backwards = 0       # eval-mode backward passes since the last train one
        self._counted_step, self._backwards = None, 0     # backward passes of that step
        self._train_backward_step = None   # the watched step of the last train-mode backward
        self._mode_layers = None           # [(name, module)] dropout/batch norm, found once
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
            if self._train_backward_step == step:
                self._note_mixed_accumulation(step)
            return
        self._train_backward_step = step
        self.observed.train_backward_total += 1
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

    def _note_mixed_accumulation(self, step):
        """An eval-mode backward after a train-mode one of the same watched step: kept when
        ``.grad`` still holds that training gradient and dropout/batch-norm layers are in
        eval mode (a model without them computes the same thing in either mode)."""
        try:
            rows = self.observed.eval_mode_accumulations
            if len(rows) >= MAX_STEPS_KEPT or (rows and rows[-1][0] == step):
                return
            eval_layers = [name for name, module in self._modes()
                           if not self.adapter.is_training(module)]
            if not eval_layers:
                return
            held = self.adapter.grad_of(self.parameter)
            if held is not None and held.size and (held != 0).any():
                rows.append((int(step), eval_layers[0], len(eval_layers)))
        except Exception as error:      # never break the user's backward
            self._on_error(error)

    def _modes(self):
        """The model's dropout and batch-norm layers, (name, module), found at first use."""
        if self._mode_layers is None:
            self._mode_layers = [
                (name, m) for name, m in self.adapter.named_modules()
                if self.adapter.module_type(m) in BATCHNORM_TYPES | DROPOUT_TYPES]
        return self._mode_layers

    def close(self):
        if self._handle is not None:
            self._handle.remove()
            self._handle = None
