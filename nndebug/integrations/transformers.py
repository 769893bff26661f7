"""nndebug.watch inside a Hugging Face ``Trainer``: ``Trainer(..., callbacks=[NNDebugCallback()])``.

Where it hooks into the Trainer's loop, and why there:

- ``on_train_begin``: the Trainer hands its model and optimizer to callbacks; the monitor
  watches that model with that optimizer (unwrapped from accelerate's proxy).
- The loss: callbacks are not given the loss, so a forward hook on the model reads the
  ``loss`` the model returns (``outputs.loss``, as Hugging Face models do when labels are
  passed) for each micro-batch, detached, without a device sync.
- ``on_optimizer_step``: runs right after ``optimizer.step()`` and before the Trainer
  clears the gradients, exactly where a hand-written loop calls ``monitor.step(loss)``;
  with gradient accumulation it runs once per optimizer step, and the step's loss is the
  mean over its micro-batches.
- ``on_evaluate``: ``eval_loss`` goes to the next step as ``val_loss`` (for OVERFITTING).
- ``on_train_end``: findings printed on the main process, written to the ``transformers``
  logger and to ``state.log_history`` (saved in ``trainer_state.json``), monitor closed,
  the loss hook removed.

A model whose loss is computed outside ``forward`` (a custom ``compute_loss``) returns no
``loss``: its steps cannot be given a loss, so they are not recorded and the callback says
so once at the end.
"""
from transformers import TrainerCallback
from transformers.utils import logging as hf_logging

from ._common import LossBuffer, as_float, closing_summary, findings_as_metrics, findings_as_text

__all__ = ["NNDebugCallback"]

_log = hf_logging.get_logger("nndebug")


def _loss_of(output):
    """The loss a Hugging Face style model returned, or None."""
    loss = getattr(output, "loss", None)
    if loss is None and isinstance(output, dict):
        loss = output.get("loss")
    return loss if hasattr(loss, "detach") else None


class NNDebugCallback(TrainerCallback):
    """Watch a Hugging Face Trainer run with ``nndebug.watch``; keyword arguments go to
    ``watch``. ``verbose``: print the findings at the end of training."""

    def __init__(self, *, verbose=True, **watch_kwargs):
        self.watch_kwargs = watch_kwargs
        self.verbose = verbose
        self.monitor = None
        self._losses = LossBuffer()
        self._val_loss = None
        self._loss_hook = None
        self._steps_without_loss = 0

    def on_train_begin(self, args, state, control, model=None, optimizer=None, **kwargs):
        import nndebug
        optimizer = getattr(optimizer, "optimizer", optimizer)     # accelerate's wrapper
        self.monitor = nndebug.watch(model, optimizer=optimizer, **self.watch_kwargs)
        self._loss_hook = model.register_forward_hook(self._read_loss)

    def _read_loss(self, module, inputs, output):
        if module.training:
            self._losses.add(_loss_of(output))

    def on_optimizer_step(self, args, state, control, **kwargs):
        if self.monitor is None or self.monitor.closed:
            return
        loss = self._losses.take_mean()
        if loss is None:
            self._steps_without_loss += 1
            return
        val_loss, self._val_loss = self._val_loss, None
        self.monitor.step(loss, val_loss=val_loss)

    def on_evaluate(self, args, state, control, metrics=None, **kwargs):
        self._val_loss = as_float((metrics or {}).get("eval_loss"))

    def on_train_end(self, args, state, control, **kwargs):
        if self._loss_hook is not None:
            self._loss_hook.remove()
            self._loss_hook = None
        if self.monitor is None or self.monitor.closed:
            return
        self.monitor.close()
        findings = self.monitor.findings()
        if self._steps_without_loss:
            _log.warning(f"nndebug: {self._steps_without_loss} optimizer steps had no loss to "
                         "read (the model's forward returned no `loss`), so they were not watched.")
        if state.is_world_process_zero:
            if self.verbose:
                closing_summary(self.monitor, "transformers")
            for finding in findings:
                if finding.severity != "info":
                    _log.warning(f"nndebug: {finding}")
            state.log_history.append({**findings_as_metrics(findings), "step": state.global_step,
                                      "nndebug/findings": findings_as_text(findings)})
