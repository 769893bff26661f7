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
``val_loss``, after the step's last training forward. A forward pre-hook on the model holds
on to the first floating-point input (if any: token ids have none) of the no-gradient
forwards since the last training forward (at most MAX_KEPT), with the training mode of its
batch-norm and dropout layers and of the model itself. When a step passes ``val_loss``
(from the second such step on: the first only shows that the user validates) they were the
validation's, and the mean and standard deviation of each input are measured (one host
transfer each). Once a run has passed ``val_loss``, no-gradient forwards before a training
forward (pseudo-labels) or in steps without a validation loss are dropped unmeasured.
Training forwards are left to the per-step records (``StepRecord.inputs``). Once MAX_KEPT
validation forwards are measured the hook goes.

Most loops never pass ``val_loss``: they evaluate and print. Their evaluations are still
recognisable when the user says so by switching the model to eval mode: no-gradient
forwards with the model in eval mode, between two training steps (or after the last one),
in a run that has passed no ``val_loss`` so far. Those (the first MAX_KEPT) are measured
the same way, when the next training forward shows they were not part of a step, or when
the monitor closes; they are kept apart, in ``run.observed.unannounced_evaluations``, and
VALIDATION_INPUTS_RESCALED reads them only when no announced validation was measured (a run
that passes ``val_loss`` is judged as before). Forwards in training mode are not taken
without a ``val_loss``: a GAN sampling its generator, a policy acting, a pseudo-labelling
pass look just like them.

Cost: a grad-mode check per forward (about 3 microseconds: a forward pre-hook's cost in
torch), from the start (for the evaluations no ``val_loss`` announces) until MAX_KEPT
announced validations were measured. Kept in ``run.observed.validation_inputs`` as
``(step, mean, std, norm_training, dropout_training, share of negative entries)`` (a
declared field of ``nndebug.observed.Observed``: saved and loaded with the run), and
``run.observed.unannounced_evaluations`` in the same layout.
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
        self._pending_eval = []           # for each: whether the model was in eval mode
        self._announced = False           # a step passed val_loss
        self._mode_layers = None          # [(is batch norm, module)], found at first use
        self._grad_enabled = None
        if adapter.framework == "torch" and root is not None:
            import torch
            self._grad_enabled = torch.is_grad_enabled
            try:
                self._handle = adapter.add_forward_pre_hook(root, self._before_forward)
            except Exception as error:    # a model without hooks: nothing is measured
                on_error(error)

    @property
    def held(self):
        """The inputs held since the last training forward, not yet measured: ``[(step,
        input or None, norm training, dropout training)]`` (``validation_draws.py`` reads
        them before ``saw_validation`` lets them go). Empty until a ``val_loss`` was seen:
        the first announced validation is not held (as when the hook went on only then)."""
        return self._pending if self._announced else []

    def _drop_pending(self):
        self._pending, self._pending_eval = [], []

    def saw_validation(self):
        """``mon.step(loss, val_loss=...)`` is closing the current step: its no-gradient
        forwards were the validation's (measured from the second such step on), and the
        hook goes off once MAX_KEPT validation forwards were measured."""
        if not self._announced:           # the first validation is not measured (the
            self._announced = True        # hook used to go on only after it)
            self._drop_pending()
        try:
            step, kept = self._current_step(), self.observed.validation_inputs
            for at, x, norm, dropout in self._pending:
                if at == step and len(kept) < MAX_KEPT:
                    kept.append(self._row(step, x, norm, dropout))
        except Exception as error:        # never break the user's step
            self._on_error(error)
        self._drop_pending()
        if len(self.observed.validation_inputs) >= MAX_KEPT:
            self.close()

    def _row(self, step, x, norm, dropout):
        mean, std, negative = (float("nan"),) * 3 if x is None else \
            (float(v) for v in self.adapter.to_numpy(self._mean_std(x)))
        return (step, mean, std, norm, dropout, negative)

    def _take_unannounced(self):
        """No ``val_loss`` so far: the held forwards that ran in eval mode, with a float
        input, were an evaluation the user did not announce (module doc)."""
        kept = self.observed.unannounced_evaluations
        try:
            for (at, x, norm, dropout), in_eval in zip(self._pending, self._pending_eval):
                if in_eval and x is not None and len(kept) < MAX_KEPT:
                    kept.append(self._row(at, x, norm, dropout))
        except Exception as error:        # never break the user's step
            self._on_error(error)
        self._drop_pending()

    def _before_forward(self, module, inputs):
        if self._grad_enabled():          # a training forward (the records measure it):
            if self._pending:             # the no-gradient forwards before it: without any
                if not self._announced:   # val_loss, the eval-mode ones were an evaluation;
                    self._take_unannounced()   # else part of the training step
                self._drop_pending()      # (pseudo-labels), not the announced validation
            return
        try:
            step, pending = self._current_step(), self._pending
            if pending and pending[0][0] != step:
                self._drop_pending()      # an earlier step's, which passed no val_loss
                pending = self._pending
            if len(pending) < MAX_KEPT:   # token ids have no float input: modes only
                leaves = self.adapter.float_leaves(inputs)
                x = self.adapter.detach(leaves[0]) if leaves else None
                pending.append((step, x) + self._modes())
                self._pending_eval.append(not self.adapter.is_training(self.root))
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
        if self._pending and not self._announced:   # an evaluation after the last step
            self._take_unannounced()
        self._drop_pending()
        if self._handle is not None:
            self._handle.remove()
            self._handle = None

