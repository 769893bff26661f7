"""nndebug.watch inside a Lightning ``Trainer``: ``trainer = Trainer(callbacks=[NNDebugCallback()])``.

Where it hooks into Lightning's loop, and why there:

- ``on_train_start``: the optimizers exist by then (``trainer.optimizers``); the monitor
  watches the LightningModule with the first optimizer.
- ``on_train_batch_end``: runs after the optimizer step of the batch (if there was one)
  and before Lightning clears the gradients (it does so at the start of the next closure),
  so the monitor sees ``.grad`` as a hand-written loop would. Lightning divides the loss it
  hands back by ``accumulate_grad_batches``; it is multiplied back and averaged over the
  micro-batches of the step. ``trainer.global_step`` counts optimizer steps: when it has
  not moved, the batch was one micro-batch of an accumulation and the monitor waits.
- ``on_before_backward``: the loss as backward gets it, its graph still attached. The loss
  Lightning hands to ``on_train_batch_end`` is detached (twice: the closure keeps a detached
  copy), and the rules that read the loss's graph (what the loss was computed from, which
  terms reach it) saw nothing in Lightning runs. Under automatic optimisation without
  accumulation that tensor is what ``monitor.step`` gets; otherwise the detached mean of
  the micro-batches, as before.
- A ``training_step`` that returns no loss under automatic optimisation (the ``return
  loss`` forgotten) trains nothing: the monitor steps with the training loss it logged with
  ``self.log`` (``train_loss``, ``loss``, or the one training metric named "...loss...").
- ``on_validation_epoch_end``: the logged validation loss (``val_loss_key``) goes to the
  next ``monitor.step`` as ``val_loss`` (for OVERFITTING).
- ``on_train_end``: findings printed (rank 0), logged to every configured logger, monitor
  closed. ``state_dict``/``load_state_dict``: the monitor's history travels in Lightning's
  checkpoints, so a resumed run keeps one history.
"""
from lightning.pytorch.callbacks import Callback

from ._common import (LossBuffer, as_float, closing_summary, findings_as_metrics,
                      findings_as_text, weights_validated, with_graph)

__all__ = ["NNDebugCallback"]


class NNDebugCallback(Callback):
    """Watch a Lightning run with ``nndebug.watch``; keyword arguments go to ``watch``.

    ``val_loss_key``: the name under which ``validation_step`` logs its loss
    (``self.log("val_loss", loss)``); ``verbose``: print the findings at the end.
    """

    def __init__(self, *, val_loss_key="val_loss", verbose=True, **watch_kwargs):
        super().__init__()
        self.watch_kwargs = watch_kwargs
        self.val_loss_key = val_loss_key
        self.verbose = verbose
        self.monitor = None
        self._losses = LossBuffer()
        self._val_loss = None
        self._last_global_step = 0
        self._restored_state = None
        self._graph_loss = None         # this batch's loss with its graph (on_before_backward)

    # --- training -------------------------------------------------------------------------
    def on_train_start(self, trainer, pl_module):
        import nndebug
        optimizer = trainer.optimizers[0] if trainer.optimizers else None
        self.monitor = nndebug.watch(pl_module, optimizer=optimizer, **self.watch_kwargs)
        if self._restored_state is not None and hasattr(self.monitor, "load_state_dict"):
            self.monitor.load_state_dict(self._restored_state)
        self._restored_state = None
        self._last_global_step = trainer.global_step

    def on_before_backward(self, trainer, pl_module, loss):
        if self.monitor is not None and not self.monitor.closed:
            self._graph_loss = loss

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
        if self.monitor is None or self.monitor.closed:
            return
        loss = outputs.get("loss") if isinstance(outputs, dict) else outputs
        if loss is not None and hasattr(loss, "detach"):
            self._losses.add(loss.detach() * trainer.accumulate_grad_batches)
        elif getattr(pl_module, "automatic_optimization", False):
            # training_step returned no loss: Lightning backpropagates nothing, and the
            # optimizer steps on no gradient, as in a loop that forgot ``return loss``. The
            # loss the step logged is what the user sees; the monitor steps with it, so that
            # a run which never trains is seen as one (NO_GRADIENT)
            self._losses.add(_logged_training_loss(trainer))
        if trainer.global_step == self._last_global_step:
            return                      # a micro-batch of an accumulation: no optimizer step yet
        self._last_global_step = trainer.global_step
        graph_loss, self._graph_loss = self._graph_loss, None
        micro_batches = len(self._losses.values)
        step_loss = self._losses.take_mean()
        if step_loss is None:           # manual optimisation returning nothing: no loss to show
            return
        if micro_batches == 1 and trainer.accumulate_grad_batches == 1 and \
                getattr(pl_module, "automatic_optimization", False):
            # backward got the very tensor training_step returned; manual optimisation may
            # backpropagate one loss and return another, so its graph is not used there
            step_loss = with_graph(graph_loss, step_loss)
        val_loss, self._val_loss = self._val_loss, None
        self.monitor.step(step_loss, val_loss=val_loss)

    def on_validation_epoch_end(self, trainer, pl_module):
        if trainer.sanity_checking:
            return
        self._val_loss = as_float(trainer.callback_metrics.get(self.val_loss_key))
        weights_validated(self.monitor, self._val_loss)   # before the next update

    def on_train_end(self, trainer, pl_module):
        self._finish(trainer)

    def on_exception(self, trainer, pl_module, exception):
        if self.monitor is not None:
            self.monitor.close()

    def _finish(self, trainer):
        if self.monitor is None or self.monitor.closed:
            return
        self.monitor.close()
        findings = self.monitor.findings()
        if self.verbose and trainer.is_global_zero:
            closing_summary(self.monitor, "lightning")
        for logger in trainer.loggers:
            logger.log_metrics(findings_as_metrics(findings), step=trainer.global_step)
            add_text = getattr(getattr(logger, "experiment", None), "add_text", None)
            if callable(add_text):
                add_text("nndebug/findings", findings_as_text(findings), trainer.global_step)

    # --- checkpoints ---------------------------------------------------------------------------
    def state_dict(self):
        if self.monitor is not None and hasattr(self.monitor, "state_dict"):
            return {"monitor": self.monitor.state_dict()}
        return {}

    def load_state_dict(self, state_dict):
        self._restored_state = state_dict.get("monitor")


def _logged_training_loss(trainer):
    """The training loss ``training_step`` logged with ``self.log`` (the latest value in
    ``trainer.callback_metrics``): a key named ``train_loss`` or ``loss``, else the one key
    with "loss" in its name that is not a validation or test metric; None when none."""
    metrics = getattr(trainer, "callback_metrics", None) or {}
    for key in ("train_loss", "train_loss_step", "loss"):
        if key in metrics:
            return metrics[key]
    keys = [k for k in metrics if "loss" in k and not k.startswith(("val", "test"))]
    return metrics[keys[0]] if len(keys) == 1 else None
