"""``nndebug.watch``: a training monitor cheap enough to leave switched on.

    with nd.watch(model, optimizer) as mon:
        for x, y in batches:
            optimizer.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            optimizer.step()
            mon.step(loss)                # once per optimizer step, after optimizer.step()
    print(mon.report())

What it measures, and how it stays cheap:

- The loss of every step is kept (a detached reference; no device-to-host copy per step).
- On *recorded* steps it also measures, through the adapter: per-parameter gradient
  norms (tensor hooks on the parameters sum what backward delivered since the last
  optimizer step), what ``.grad`` held at step time (more than backward delivered means
  gradients were carried over: a missing ``zero_grad``), update-to-weight ratios,
  per-layer activation statistics (forward hooks; reductions run where the tensor
  lives), the input batch, the model's output and the train/eval mode of dropout and
  batch-norm layers. All the small results of a step are concatenated into ONE tensor
  and copied to the host once.
- Hooks exist only while a step is being recorded: between recorded steps the model runs
  with no hook at all. No module backward hooks are used (they break in-place ops).
- Which steps are recorded: see ``schedule.py``. The rules judge a fixed set of steps
  that depends on the step number only (0, 1, 2, 4, 8, 16, 32, ..., every 1024th,
  and the steps after a NaN), so the same run gets the same findings on any machine;
  more steps are recorded as the 1% time budget (``overhead=0.01``) allows, for plots
  and sinks only.
  ``overhead=None`` records (and judges) exactly every ``every`` steps.

One file per job:

    monitor.py     Monitor, the thin coordinator (calls the others in order)
    schedule.py    which steps are recorded: pure arithmetic, no model
    hooks.py       the hooks of one recorded step: on before it, off right after
    statistics.py  what is measured: plain functions (device side and host side)
    transfer.py    one host copy per recorded step; host values -> StepRecord
    losses.py      the loss of every step, kept as a reference until it is copied
    discover.py    which parameters and layers are watched (once, at the start)
    sinks.py       where the run goes while it trains (TensorBoard, ...)
    loss_jumps.py  every 8 steps: a loss far above its recent range records the next steps
    batches.py     a fingerprint of each early batch (is the data order the same each epoch?)
    keyword_inputs.py  the inputs of a model called by keyword only (the Hugging Face way)
    sample_rows.py how many different samples the first judged batches hold
    ranks.py       the ranks of a distributed run compare notes on agreed steps
    around.py      what happens around the model (-> ``run.observed``), through:
      loss_capture.py     what reaches the loss (watch's ``loss_fn=``, loss modules, its graph)
      target_ids.py       which class ids reach a cross-entropy loss (padding it does not ignore)
      padding_ids.py      embeddings declared with a padding_idx, and the ids they are given
      structure.py        unregistered parts, frozen tensors, batch-norm batch sizes
      settings.py         the optimizer's settings and the dropout rates, read once
      raised_warnings.py  the framework's warnings, with step and module
      graph_growth.py     the size of the loss's graph on the first steps (a state not detached)
      loss_terms.py       addends of the loss with no gradient, read on the same steps
      functional_dropout.py  dropout function calls that ignore eval(), read from source once
      layer_layouts.py    the shapes around Conv1d/BatchNorm1d and last-axis layers (first steps)
      attention_capture.py  attention weights made by a softmax function call (torch)
      function_modes.py   our torch function modes: pushed, retired, popped from the top only
      carried_gradients.py  eval-mode gradients left in .grad for a training step (every step)
      optimizer_steps.py    optimizer steps without a new gradient (every step)
      schedulers.py       the learning-rate schedulers, read once the rate has moved
      unstepped.py        gradients whose step() never came
      optimizer_restarts.py  optimizers built anew over the watched parameters (global hook)
      shared_optimizers.py   two optimizers stepping the same tensors in one step (global hooks)
      seed_calls.py       torch.manual_seed calls while training runs
      validation_inputs.py   the inputs and layer modes of validation forwards (after val_loss)
      forwards_after_training.py  no-gradient forwards after the last step: layer modes, repeats
      validation_draws.py    the first rows of two validation passes (same samples changed?)
      window_overlap.py   validation windows that are training windows shifted a few steps
      random_states.py    RNN initial states drawn at random in forward, read from source once
      window_borders.py   the state each RNN starts a window from, and whether windows continue
      soft_target_rows.py    row sums of probability targets given to cross-entropy
      module_flags.py     requires_grad set on a module object (not its parameters)
      parameter_dtypes.py    the storage dtype of each parameter (bfloat16/float16 updates)
    long_run.py    long runs: the history budget, saves while training, resuming

Data flows one way: adapter -> ``nndebug.records`` (NumPy) -> ``nndebug.rules`` ->
findings -> ``nndebug.report``. The monitor measures; it does not know what is healthy:
it imports no threshold from the rules and calls them once, ``rules.diagnose(run)``.

How to extend
-------------
- A new statistic: a function (or one more ``(name, value)`` pair) in ``statistics.py``,
  computed where the tensor lives with the adapter's ``xp`` functions, tested against a
  NumPy reference in ``tests/test_statistics.py``; ``transfer.build_record`` puts it into
  the ``StepRecord`` (``record.activations[layer][name]`` needs nothing new). Each
  statistic is computed on its own (``statistics.each``): one that raises is left out
  and noted, the rest of the record is kept.
- A new sink: subclass ``Sink`` (``sinks.py``), override ``on_step`` / ``on_losses`` /
  ``on_record`` / ``close`` as needed, and pass it: ``watch(model, opt, sinks=[MySink()])``.
  A sink that raises is dropped with a MONITOR_ERROR note; it never breaks training.
- A probe that runs once early: ``watch(model, opt, probes=[probe])`` or append to
  ``mon.probes`` before training. Each probe is called once as ``probe(monitor, record)``
  on the first judged record after the warm-up steps (step 4 by default: a step that
  does not depend on timing, so its findings are repeatable, see ``schedule.py``); it
  must leave the model, optimizer and RNG as it found them, and returns a list of
  ``Finding`` (or None).
- Extra findings: what probes return lands in ``mon.extra_findings``; a sink's
  ``findings(run)`` is asked each time. Both join ``rules.diagnose(run.judged_view())`` in
  ``Monitor.findings()`` and are sorted with them (``sort_findings``).
"""
from .monitor import DEFAULT_OVERHEAD, HISTOGRAM_EVERY, Monitor
from .schedule import ESCALATED_RECORDS, WARMUP_RECORDS, Schedule
from .sinks import Sink, TensorBoardSink
from .long_run import DEFAULT_MAX_HISTORY_MB, DEFAULT_SAVE_EVERY_S

__all__ = ["watch", "Monitor", "Sink", "TensorBoardSink", "Schedule", "DEFAULT_OVERHEAD",
           "HISTOGRAM_EVERY", "ESCALATED_RECORDS", "WARMUP_RECORDS"]


def watch(model, optimizer=None, *, every=1, overhead=DEFAULT_OVERHEAD, tensorboard=None,
          histogram_every=HISTOGRAM_EVERY, sinks=(), probes=(), loss_fn=None, group=None,
          max_history_mb=DEFAULT_MAX_HISTORY_MB, save_to=None, save_every_s=DEFAULT_SAVE_EVERY_S):
    """Start monitoring ``model`` (and ``optimizer``); returns a ``Monitor``.

    Call ``mon.step(loss)`` once per optimizer step, after ``optimizer.step()``; read
    ``mon.findings()`` / ``mon.report()`` at any time; ``mon.close()`` (or leaving the
    ``with`` block) removes every hook. ``every``: record detailed statistics at most
    every ``every`` steps. ``overhead``: the share of training time the monitor may spend on
    records beyond the judged ones (default 1%; None: record exactly every ``every`` steps). ``tensorboard``: a log directory to
    write scalars and histograms to (needs torch or tensorboardX). ``sinks``: more
    ``Sink`` objects that receive the run as it is measured; ``probes``: callables run
    once early (see "How to extend" above). ``loss_fn``: the loss, so that watch sees the
    output and targets that reach it (a loss module is hooked as it is; call a plain
    function through ``mon.loss_fn``); without it, loss modules called during a recorded
    step (torch) and the loss tensor's graph are read. ``group``: under torch.distributed,
    the process group whose ranks compare notes (default: the initialised default group;
    a DistributedDataParallel model is watched through its ``.module``).
    ``max_history_mb``: the memory the run's history may hold (None: no limit; what is kept:
    ``nndebug.history``). ``save_to``: a file the run is saved to, atomically, at most every
    ``save_every_s`` seconds and when the monitor closes (``nndebug.load_run``,
    ``nndebug report``; under torch.distributed rank r > 0 writes ``<stem>.rank<r><suffix>``);
    ``mon.state_dict()`` goes into checkpoints (``long_run.py``).
    """
    return Monitor(model, optimizer, every=every, overhead=overhead, tensorboard=tensorboard,
                   histogram_every=histogram_every, sinks=sinks, probes=probes,
                   loss_fn=loss_fn, group=group, max_history_mb=max_history_mb, save_to=save_to,
                   save_every_s=save_every_s)
