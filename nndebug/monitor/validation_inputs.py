"""The model's validation passes: the scale of their inputs and the mode of the model
(VALIDATION_INPUTS_RESCALED, VALIDATION_IN_TRAIN_MODE: ``nndebug.rules.validation_inputs``).

A validation set that skips a step of the training pipeline (the scaler fitted on the
training features and never applied to the validation ones, a Normalize transform missing
from the test transforms) reaches the model on another scale: the validation loss then
measures the model on inputs it never saw, and reads like overfitting or like nothing
learned. A validation pass without ``model.eval()`` lets batch norm fold the validation
batches into its running statistics (and dropout keep dropping).

A validation pass is a forward run without gradients (``torch.no_grad``,
``inference_mode``) between two ``mon.step`` calls, the second of which passes
``val_loss``, after the step's last training forward. Once a first ``val_loss`` has shown
that the user validates, a forward pre-hook on the model holds on to the first
floating-point input (if any: token ids have none) of the no-gradient forwards since the
last training forward (at most MAX_KEPT), with the training mode of its batch-norm and dropout layers; when the step then
passes ``val_loss`` they were the validation's, and the mean and standard deviation of each
input are measured (one host transfer each). No-gradient forwards before a training forward
(pseudo-labels, a target network's) or in steps without a validation loss are dropped
unmeasured. Training forwards are left to the per-step records (``StepRecord.inputs``).
Once MAX_KEPT validation forwards are measured the hook goes.

Cost: a run that never passes ``val_loss`` pays nothing; one that does pays a grad-mode
check per forward (about 3 microseconds: a forward pre-hook's cost in torch) from its first
validation to the one that fills MAX_KEPT (usually the second or third). Kept in
``run.observed.validation_inputs`` as ``(step, mean, std, norm_training,
dropout_training, share of negative entries)`` (a declared field of ``nndebug.observed.Observed``: saved and loaded
with the run).
"""
from ..records import BATCHNORM_TYPES, DROPOUT_TYPES

MAX_KEPT = 4           # [design] validation forwards measured (the answer is in the first)


def mode_layers(adapter):
    """[(is batch norm, module)] of the model's batch-norm and dropout layers: the layers
    whose training flag changes what a forward computes."""
    return [(adapter.module_type(m) in BATCHNORM_TYPES, m) for _, m in adapter.named_modules()
            if adapter.module_type(m) in BATCHNORM_TYPES | DROPOUT_TYPES]


class ValidationInputs:
    def __init__(self, adapter, observed, root, current_step, on_error):
        self.adapter, self.observed, self.root = adapter, observed, root
        self._current_step, self._on_error = current_step, on_error
        self._handle = None
        self._pending = []                # [(step, input, norm training, dropout training)]
        self._mode_layers = None          # [(is batch norm, module)], found at first use
        self._grad_enabled = None
        if adapter.framework == "torch" and root is not None:
            import torch
            self._grad_enabled = torch.is_grad_enabled

    @property
    def held(self):
        """The inputs held since the last training forward, not yet measured: ``[(step,
        input or None, norm training, dropout training)]`` (``validation_draws.py`` reads
        them before ``saw_validation`` lets them go)."""
        return self._pending

    def saw_validation(self):
        """``mon.step(loss, val_loss=...)`` is closing the current step: its no-gradient
        forwards were the validation's. The hook goes on after the first one (from the next
        validation), and off once MAX_KEPT validation forwards were measured."""
        try:
            step, kept = self._current_step(), self.observed.validation_inputs
            for at, x, norm, dropout in self._pending:
                if at == step and len(kept) < MAX_KEPT:
                    mean, std, negative = (float("nan"),) * 3 if x is None else \
                        (float(v) for v in self.adapter.to_numpy(self._mean_std(x)))
                    kept.append((step, mean, std, norm, dropout, negative))
        except Exception as error:        # never break the user's step
            self._on_error(error)
        self._pending = []
        if len(self.observed.validation_inputs) >= MAX_KEPT:
            self.close()
        elif self._handle is None and self._grad_enabled is not None:
            self._handle = self.adapter.add_forward_pre_hook(self.root, self._before_forward)

    def _before_forward(self, module, inputs):
        if self._grad_enabled():          # a training forward (the records measure it):
            if self._pending:             # the no-gradient forwards before it were part of
                self._pending.clear()     # the training step (pseudo-labels), not validation
            return
        try:
            step, pending = self._current_step(), self._pending
            if pending and pending[0][0] != step:
                pending.clear()           # an earlier step's, which passed no val_loss
            if len(pending) < MAX_KEPT:   # token ids have no float input: modes only
                leaves = self.adapter.float_leaves(inputs)
                x = self.adapter.detach(leaves[0]) if leaves else None
                pending.append((step, x) + self._modes())
        except Exception as error:        # never break the user's forward pass
            self._on_error(error)

    def _modes(self):
        """(a batch-norm layer in training mode, a dropout layer in training mode)."""
        if self._mode_layers is None:
            self._mode_layers = mode_layers(self.adapter)
        training = [(norm, self.adapter.is_training(m)) for norm, m in self._mode_layers]
        return (any(t for norm, t in training if norm),
                any(t for norm, t in training if not norm))

    def _mean_std(self, x):
        """The mean, the (population) standard deviation and the share of negative entries
        of a tensor, stacked for one host transfer: the records' own ``mean_std``, in
        float32 at least. The share tells raw non-negative data (pixels, counts) from
        centred data (``rules.validation_inputs``)."""
        xp = self.adapter.xp
        x = x.float()
        return xp.stack(list(xp.mean_std(x)) + [(x < 0).float().mean()])

    def close(self):
        self._pending = []
        if self._handle is not None:
            self._handle.remove()
            self._handle = None

