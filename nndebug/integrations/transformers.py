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
- ``on_save``: the monitor's state (``mon.state_dict()``) goes into the checkpoint folder
  the Trainer just wrote, as ``nndebug_state.pt`` (``torch.save``; rank r > 0 of a
  distributed run writes ``nndebug_state.rank<r>.pt``). ``on_train_begin`` of a run resumed
  with ``trainer.train(resume_from_checkpoint=...)`` loads it back (callbacks are not told
  the checkpoint's path: it is ``args.resume_from_checkpoint`` when set, else
  ``output_dir/checkpoint-<global step>``, where ``resume_from_checkpoint=True`` and the
  Trainer's own checkpoints put it), so the resumed run keeps one history: step numbers
  continue, the rules see the whole run. Without the file the history starts anew.

A model whose loss is computed outside ``forward`` returns no ``loss``: the Trainer computes
it (``label_smoothing_factor``, ``compute_loss_func``, a custom ``compute_loss`` that pops the
labels), and real-bug batch 145 found such runs not watched at all (300 steps, no record).
So the loss the Trainer backpropagates is read too: while a watched run trains,
``accelerate.Accelerator.backward`` (through which the Trainer calls every backward pass)
is wrapped by a function that notes the loss it is given and calls the original; the
original is put back when the last watched run ends. That loss is used when the model
returned none (times the accumulation steps the Trainer divided it by, when it
accumulates).

Without accumulation, the step's loss is given to ``monitor.step`` with its graph (the
model's own ``loss`` output, else the loss backward got), so the rules that read the loss's
graph see what it was computed from; with accumulation, the detached mean of the
micro-batches.
"""
import functools
import os

from transformers import TrainerCallback
from transformers.utils import logging as hf_logging

from ._common import (LossBuffer, as_float, closing_summary, findings_as_metrics,
                      findings_as_text, weights_validated, with_graph)

__all__ = ["NNDebugCallback"]

_log = hf_logging.get_logger("nndebug")
STATE_FILE = "nndebug_state.pt"
CHECKPOINT_PREFIX = "checkpoint"      # the Trainer's folders: output_dir/checkpoint-<step>


def _loss_of(output):
    """The loss a Hugging Face style model returned, or None."""
    loss = getattr(output, "loss", None)
    if loss is None and isinstance(output, dict):
        loss = output.get("loss")
    return loss if hasattr(loss, "detach") else None


_TRAINING = []     # the callbacks whose runs are training now (they note backward losses)


def _noting_backward(original):
    """``Accelerator.backward`` that first hands its loss to the callbacks training now."""
    @functools.wraps(original)
    def backward(self, loss, **kwargs):
        for callback in list(_TRAINING):
            callback._note_backward(loss)
        return original(self, loss, **kwargs)
    backward.nndebug_original = original
    return backward


def _start_noting_backward(callback):
    try:
        from accelerate import Accelerator
    except ImportError:               # a Trainer without accelerate: forward losses only
        return
    if not hasattr(Accelerator.backward, "nndebug_original"):
        Accelerator.backward = _noting_backward(Accelerator.backward)
    if callback not in _TRAINING:
        _TRAINING.append(callback)


def _stop_noting_backward(callback):
    if callback in _TRAINING:
        _TRAINING.remove(callback)
    if _TRAINING:
        return
    try:
        from accelerate import Accelerator
    except ImportError:
        return
    original = getattr(Accelerator.backward, "nndebug_original", None)
    if original is not None:
        Accelerator.backward = original


def _state_path(folder):
    from ..monitor.long_run import process_rank, rank_path
    return os.path.join(folder, rank_path(STATE_FILE, process_rank()))


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
        self._backward_losses = LossBuffer()   # what the Trainer backpropagated
        self._graph_losses = [None, None]      # the last forward and backward loss, with graph

    def on_train_begin(self, args, state, control, model=None, optimizer=None, **kwargs):
        import nndebug
        optimizer = getattr(optimizer, "optimizer", optimizer)     # accelerate's wrapper
        self.monitor = nndebug.watch(model, optimizer=optimizer, **self.watch_kwargs)
        self._loss_hook = model.register_forward_hook(self._read_loss)
        _start_noting_backward(self)
        if state.global_step > 0:         # resumed from a checkpoint: continue its history
            self._resume(args, state)

    def _read_loss(self, module, inputs, output):
        if module.training:
            loss = _loss_of(output)
            if loss is not None:
                self._losses.add(loss)
                self._graph_losses[0] = loss

    def _note_backward(self, loss):
        if self.monitor is not None and not self.monitor.closed and hasattr(loss, "detach"):
            self._backward_losses.add(loss)
            self._graph_losses[1] = loss

    def on_optimizer_step(self, args, state, control, **kwargs):
        if self.monitor is None or self.monitor.closed:
            return
        loss = self._step_loss(max(1, int(getattr(args, "gradient_accumulation_steps", 1))))
        if loss is None:
            self._steps_without_loss += 1
            return
        val_loss, self._val_loss = self._val_loss, None
        self.monitor.step(loss, val_loss=val_loss)

    def _step_loss(self, accumulation):
        """This optimizer step's loss: the model's own (its micro-batches' mean), else what
        the Trainer backpropagated (undivided by the accumulation), else None. With one
        micro-batch and no accumulation, the tensor itself, with its graph."""
        graphs, self._graph_losses = self._graph_losses, [None, None]
        forward, backward = len(self._losses.values), len(self._backward_losses.values)
        if forward:
            self._backward_losses.take_mean()
            loss, count, graph = self._losses.take_mean(), forward, graphs[0]
        else:
            loss, count, graph = self._backward_losses.take_mean(), backward, graphs[1]
            if loss is not None and accumulation > 1:
                loss = loss * accumulation
        return with_graph(graph, loss) if count == 1 and accumulation == 1 else loss

    # --- checkpoints ---------------------------------------------------------------------------
    def on_save(self, args, state, control, **kwargs):
        if self.monitor is None:
            return
        folder = os.path.join(args.output_dir, f"{CHECKPOINT_PREFIX}-{state.global_step}")
        if not os.path.isdir(folder):
            _log.warning(f"nndebug: no checkpoint folder {folder} to keep the monitor's state "
                         "in; a run resumed from this checkpoint starts a new history.")
            return
        import torch
        path = _state_path(folder)
        temporary = f"{path}.{os.getpid()}.tmp"     # whole or absent, as the Trainer's files
        torch.save(self.monitor.state_dict(), temporary)
        os.replace(temporary, path)

    def _resume(self, args, state):
        import torch
        candidates = [args.resume_from_checkpoint] if isinstance(
            getattr(args, "resume_from_checkpoint", None), str) else []
        candidates.append(os.path.join(args.output_dir, f"{CHECKPOINT_PREFIX}-{state.global_step}"))
        for folder in candidates:
            path = _state_path(folder)
            if not os.path.isfile(path):
                continue
            try:
                self.monitor.load_state_dict(torch.load(path))    # weights_only: plain data
            except Exception as error:        # a damaged file never stops the training
                _log.warning(f"nndebug: could not continue the monitor's history from {path} "
                             f"({error}); it starts anew.")
            return
        _log.warning(f"nndebug: training resumes at step {state.global_step} but no "
                     f"{STATE_FILE} was found in {' or '.join(candidates)}; the monitor's "
                     "history starts anew (its step numbers count from 0).")

    def on_evaluate(self, args, state, control, metrics=None, **kwargs):
        self._val_loss = as_float((metrics or {}).get("eval_loss"))
        weights_validated(self.monitor, self._val_loss)   # before the next update

    def on_train_end(self, args, state, control, **kwargs):
        _stop_noting_backward(self)
        if self._loss_hook is not None:
            self._loss_hook.remove()
            self._loss_hook = None
        if self.monitor is None or self.monitor.closed:
            return
        self.monitor.close()
        findings = self.monitor.findings()
        if self._steps_without_loss:
            _log.warning(f"nndebug: {self._steps_without_loss} optimizer steps had no loss to "
                         "read (the model's forward returned no `loss`, and no backward pass "
                         "went through the Trainer's accelerator), so they were not watched.")
        if state.is_world_process_zero:
            if self.verbose:
                closing_summary(self.monitor, "transformers")
            for finding in findings:
                if finding.severity != "info":
                    _log.warning(f"nndebug: {finding}")
            state.log_history.append({**findings_as_metrics(findings), "step": state.global_step,
                                      "nndebug/findings": findings_as_text(findings)})
