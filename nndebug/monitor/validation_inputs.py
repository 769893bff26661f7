"""The inputs of the model's evaluation passes (VALIDATION_INPUTS_RESCALED,
``nndebug.rules.validation_inputs``).

A validation set that skips a step of the training pipeline (the scaler fitted on the
training features and never applied to the validation ones, a Normalize transform missing
from the test transforms) reaches the model on another scale: the validation loss then
measures the model on inputs it never saw, and reads like overfitting or like nothing
learned.

Once ``mon.step(loss, val_loss=...)`` has shown that the user validates, a forward pre-hook
on the model notes the mean and standard deviation of the first floating-point input of
each forward run without gradients (``torch.no_grad``, ``inference_mode``: an evaluation),
until MAX_KEPT of them were measured; then it goes. Training forwards are left to the
per-step records (``StepRecord.inputs``). A run that never passes ``val_loss`` pays
nothing; one that does pays a grad-mode check per forward (about 3 microseconds, a
forward pre-hook's cost in torch) from its first validation to the one that fills
MAX_KEPT (usually its second or third), and one host transfer per evaluation forward
measured. Kept in ``run.observed.validation_inputs`` as ``(step, mean, std)``: set on the
observed object here (a run loaded from a file does not carry it, and the rule then says
nothing).

With each it notes whether the model's batch-norm and dropout layers were in training mode
(a validation pass without ``model.eval()``: batch norm folds the validation batches into its
running statistics, dropout keeps dropping): ``(step, mean, std, norm_training,
dropout_training)``.
"""
from ..records import BATCHNORM_TYPES, DROPOUT_TYPES

MAX_KEPT = 4           # [design] evaluation forwards measured (the answer is in the first)


class ValidationInputs:
    def __init__(self, adapter, observed, root, current_step, on_error):
        self.adapter, self.observed, self.root = adapter, observed, root
        self._current_step, self._on_error = current_step, on_error
        self._handle = None
        self._mode_layers = None          # [(is batch norm, module)], found at first use
        observed.validation_inputs = []
        self._grad_enabled = None
        if adapter.framework == "torch" and root is not None:
            import torch
            self._grad_enabled = torch.is_grad_enabled

    def saw_validation(self):
        """``mon.step(loss, val_loss=...)`` was called: the user validates, so the hook goes
        on (from the next validation) until MAX_KEPT evaluations were measured."""
        if len(self.observed.validation_inputs) >= MAX_KEPT:
            self.close()
        elif self._handle is None and self._grad_enabled is not None:
            self._handle = self.adapter.add_forward_pre_hook(self.root, self._before_forward)

    def _before_forward(self, module, inputs):
        if self._grad_enabled():
            return                        # a training forward: the records measure it
        try:
            kept = self.observed.validation_inputs
            leaves = self.adapter.float_leaves(inputs)
            if not leaves or len(kept) >= MAX_KEPT:
                return                    # (the hook is removed at the next validation)
            x = self.adapter.detach(leaves[0]).float()
            mean, std = (float(v) for v in self.adapter.to_numpy(_mean_std(x)))
            kept.append((self._current_step(), mean, std) + self._modes())
        except Exception as error:        # never break the user's forward pass
            self._on_error(error)

    def _modes(self):
        """(a batch-norm layer in training mode, a dropout layer in training mode)."""
        if self._mode_layers is None:
            self._mode_layers = [
                (self.adapter.module_type(m) in BATCHNORM_TYPES, m)
                for _, m in self.adapter.named_modules()
                if self.adapter.module_type(m) in BATCHNORM_TYPES | DROPOUT_TYPES]
        training = [(norm, self.adapter.is_training(m)) for norm, m in self._mode_layers]
        return (any(t for norm, t in training if norm),
                any(t for norm, t in training if not norm))

    def close(self):
        if self._handle is not None:
            self._handle.remove()
            self._handle = None


def _mean_std(x):
    """The mean and (population) standard deviation of a tensor, in one host transfer."""
    import torch
    return torch.stack([x.mean(), x.std(unbiased=False)])
