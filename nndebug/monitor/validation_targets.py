"""What a validation loss is handed as targets, next to what the training loss is handed
(VALIDATION_TARGETS_TRUNCATED, ``nndebug.rules.validation_targets``).

A validation loop copied from a classification script keeps its ``target = target.long()``:
a regression model's validation scores are truncated towards zero (2.7 -> 2, 0.9 -> 0)
before the loss, which still runs (``F.mse_loss`` promotes the integers). The validation
loss then measures the distance to a staircase under the true scores: it sits far above the
training loss and barely moves, and early stopping or the best checkpoint follow it. The
training loss, computed right, is handed fractional targets.

What it reads (torch only). Validation: after a forward of the model with gradients off, a
``TorchFunctionMode`` sees the next regression loss call (``mse_loss``, ``l1_loss``,
``smooth_l1_loss``, ``huber_loss``, modules included: they call these) and keeps its
target's dtype and the share of whole numbers among at most TARGET_SAMPLE values of it (one host
transfer per call kept); VALIDATION_CALLS_KEPT calls (or VALIDATION_FORWARDS_WATCHED
forwards with gradients off), then the hook does nothing more (it goes when the monitor
closes). The mode is pushed
when a validation forward returns; it stops measuring after one loss call and is popped
when the model's next forward returns, or when the monitor closes. Cost: one forward hook
on the model (a few microseconds a forward) until the calls are kept. Training: the targets the
loss capture keeps (``run.observed.targets``, the first training calls), read when findings
are asked for. Kept as ``run.observed.validation_target_kinds``: ``[(kind "training" or
"validation", step, loss, dtype, values read, share of whole numbers)]``.
"""
import numpy as np

from .function_modes import top_mode

TRUNCATION_LOSSES = ("mse_loss", "l1_loss", "smooth_l1_loss",
                     "huber_loss")   # [design] torch's regression losses (modules call them)
VALIDATION_CALLS_KEPT = 4   # [design] validation loss calls read: one per validation pass is
                            # enough, a few to see it every time
VALIDATION_FORWARDS_WATCHED = 16   # [design] forwards with gradients off after which no mode
                            # is pushed any more: a loop that runs the model under no_grad
                            # every step (pseudo-labels) without a regression loss after it
                            # must not pay for the mode all run long
TARGET_SAMPLE = 4096        # [design] target values read of a call


def whole_share(values):
    """Share of whole numbers among ``values`` (a NumPy array), NaN when empty."""
    values = np.asarray(values, dtype=np.float64).ravel()
    values = values[np.isfinite(values)]
    if values.size == 0:
        return float("nan")
    return float(np.mean(values == np.round(values)))


class ValidationTargets:
    def __init__(self, adapter, observed, model, current_step, on_error):
        self.adapter, self.observed, self.on_error = adapter, observed, on_error
        self.current_step = current_step
        self.rows = []                 # validation rows, as kept
        self.watched = 0               # forwards with gradients off after which a mode went on
        self._handles, self._mode, self._stale = [], None, []
        self.enabled = adapter.framework == "torch" and model is not None
        if not self.enabled:
            return
        try:
            import torch
            self._grad_enabled = torch.is_grad_enabled
            self._handles = [adapter.add_forward_hook(model, self._after_forward)]
        except Exception as error:
            self.enabled = False
            on_error(error)

    # --- validation calls ----------------------------------------------------------------
    def _after_forward(self, module, inputs, output):
        if self._mode is not None or self._stale:
            self._pop_mode()           # the last validation forward's mode: its loss is past
        if not self.enabled or self._grad_enabled() or self._stale or \
                len(self.rows) >= VALIDATION_CALLS_KEPT or \
                self.watched >= VALIDATION_FORWARDS_WATCHED:
            return                     # done, a training forward, or a mode of ours waits
        self.watched += 1
        try:
            self._mode = _loss_call_mode(self._on_loss_call)
            self._mode.__enter__()
        except Exception as error:
            self._mode = None
            self._stop(error)

    def _on_loss_call(self, name, target):
        """The first regression loss call after a validation forward (inside the mode: only
        flags are set here, the mode is popped at the next forward or at close)."""
        try:
            import torch
            self._mode.active = False
            if not isinstance(target, torch.Tensor):
                return
            sample = target.detach().reshape(-1)[:TARGET_SAMPLE]
            share = 1.0 if not sample.is_floating_point() else \
                whole_share(self.adapter.to_numpy(sample))
            self.rows.append(("validation", int(self.current_step()), name,
                              str(target.dtype).rsplit(".", 1)[-1], int(sample.numel()), share))
        except Exception as error:
            self._stop(error)

    def _pop_mode(self):
        """Retire our mode (it stops measuring) and pop it when it is on top of the stack."""
        try:
            if self._mode is not None:
                self._mode.active = False
                self._stale.append(self._mode)
                self._mode = None
            while self._stale and top_mode() is self._stale[-1]:
                self._stale.pop().__exit__(None, None, None)
        except Exception as error:
            self._stop(error)

    def _remove_hooks(self):
        for handle in self._handles:
            handle.remove()
        self._handles = []

    def _stop(self, error):
        """No more measuring; the hook stays, flagged off, until ``close`` (it may be running
        now: a hook is never removed from inside itself)."""
        self.enabled = False
        self.on_error(error)

    # --- at findings, and at the end --------------------------------------------------
    def read(self):
        """Set ``observed.validation_target_kinds``: the validation rows kept and the training
        targets the loss capture kept (host copies, once, when findings are asked for)."""
        try:
            if not self.rows:
                return                 # nothing to compare the training targets with
            names = {c.step: c.loss for c in self.observed.loss_calls}
            training = []
            for step, target in self.observed.targets:
                values = np.asarray(self.adapter.to_numpy(target)).ravel()[:TARGET_SAMPLE]
                integer = not np.issubdtype(values.dtype, np.floating)
                training.append(("training", int(step), str(names.get(step, "")),
                                 str(getattr(target, "dtype", values.dtype)).rsplit(".", 1)[-1],
                                 int(values.size), 1.0 if integer else whole_share(values)))
            self.observed.validation_target_kinds = training + list(self.rows)
        except Exception as error:
            self.on_error(error)

    def close(self):
        self._remove_hooks()
        self._pop_mode()


def _loss_call_mode(on_call):
    """A torch function mode handing the first regression loss call's target to ``on_call``
    while ``active``, and letting every call through unchanged."""
    from torch.overrides import TorchFunctionMode

    class LossCallMode(TorchFunctionMode):
        active = True

        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            if self.active and getattr(func, "__name__", "") in TRUNCATION_LOSSES:
                target = args[1] if len(args) > 1 else kwargs.get("target")
                on_call(func.__name__, target)
            return func(*args, **kwargs)

    return LossCallMode()
