"""``Monitor``: the thin coordinator of a watched run.

Each job lives in its own file; this one only calls them in order:

    step(loss) ──► losses.py      keep the loss (a reference, no host copy)
               ──► hooks.py       if this step was recorded: hooks off, collect what they saw
               ──► transfer.py    pack every small result, ONE host copy, build a StepRecord
               ──► sinks.py       hand the record on (TensorBoard, ...)
               ──► schedule.py    record the next step? (hooks on again if so)
    findings() ──► nndebug.rules.diagnose(run), plus what probes and sinks add

Most steps are plain: the schedule says, after each full ``step()``, up to which step
nothing can be recorded (``Schedule.first_possible_record``), and until then ``step()``
takes a short way (``_close_plain_step``): keep the loss, check the losses for a jump
every 8th step, count the step, tell the sinks that want every step. On a small model
that is most of what watching costs per step.
"""
import math
import numbers
import warnings

from .. import rules
from ..adapters import adapt
from ..findings import Finding, sort_findings
from ..records import record_finite
from . import discover, schedule as schedule_module
from .around import Around
from .parameter_penalties import ParameterPenalties
from .other_optimizer_clearing import OtherOptimizerClearing
from .other_turn_gradients import OtherTurnGradients
from .late_gradients import LateGradients   # real-bug batch 50 (loop order)
from .rewritten_weights import RewrittenWeights   # real-bug batch 58 (weight copies)
from .self_references import SelfReferences   # real-bug batch 58 (a reference = the model)
from .swapped_loss_arguments import SwappedLossArguments   # real-bug batch 52
from .repeated_output_calls import RepeatedOutputCalls   # real-bug batch 269
from .squashed_scores import SquashedScores   # real-bug batch 52
from .single_value_norms import SingleValueNorms   # real-bug batch 60 (norms, dropout)
from .dropout_outputs import DropoutOutputs   # real-bug batch 60
from .running_buffers import RunningBuffers   # real-bug batch 60
from .derivative_calls import DerivativeCalls   # real-bug batch 56
from .hooks import StepHooks
from .head_rows import HeadRows   # real-bug batch 131 (output units never trained)
from .loss_jumps import LossJumps
from .losses import PENDING_LOSSES_MAX, PendingLosses, loss_value
from .sample_rows import RowCounter
from .schedule import JUDGED, WARMUP_RECORDS, Schedule
from ..adapters.torch_distributed import unwrap, unwrap_optimizer
from . import ranks
from .batches import BatchFingerprints
from .step_snapshot import SnapshotBeforeOptimizerStep
from .tiny_norm_batches import TinyNormBatches
from .sinks import Sink, TensorBoardSink
from .transfer import PARAMETER_STATISTICS, Packet, build_record, to_host_many
from ..history import BoundedRun
from . import long_run

DEFAULT_OVERHEAD = 0.01      # share of training time records beyond the judged ones may take:
                             # with the fixed costs (the loss each step, the early batch
                             # fingerprints, the judged records) watch must stay within 5% of
                             # a small model's step; 2% left a 64-64-10 MLP at 1.07-1.10x
                             # over 10k-1M steps (benchmarks/watch_long_run.py)
HISTOGRAM_EVERY = 10         # every 10th record also keeps histograms and spread statistics
BACKWARD_PASS_ROWS = 64      # [design] recorded steps whose backward passes are counted: a
                             # bounded list on long runs; the rule reads the judged ones


def _check_arguments(every, overhead, histogram_every, sinks, probes=(), loss_fn=None):
    """``(every, histogram_every)`` as Python ints (NumPy integers accepted); a clear error
    for any bad argument."""
    if isinstance(every, bool) or not isinstance(every, numbers.Integral) or every < 1:
        raise ValueError(f"every must be a positive integer (record at most every N steps), "
                         f"got {every!r}")
    if overhead is not None and not (isinstance(overhead, numbers.Real) and
                                     not isinstance(overhead, bool) and 0 < overhead <= 1):
        raise ValueError(f"overhead must be a share of the training time in (0, 1], or None "
                         f"to record exactly every `every` steps; got {overhead!r}")
    if isinstance(histogram_every, bool) or not isinstance(histogram_every, numbers.Integral) \
            or histogram_every < 1:
        raise ValueError(f"histogram_every must be a positive integer, got {histogram_every!r}")
    if loss_fn is not None and not callable(loss_fn):
        raise TypeError(f"loss_fn must be the loss the loop calls (a loss module such as "
                        f"nn.CrossEntropyLoss() or a function loss(output, target)), or None; "
                        f"got {type(loss_fn).__name__} {loss_fn!r}")
    for probe in probes:
        if not callable(probe):
            raise TypeError(f"probes must be callables probe(monitor, record) returning findings "
                            f"(or None); got {type(probe).__name__} {probe!r}")
    for sink in sinks:
        if not isinstance(sink, Sink):
            raise TypeError(f"sinks must be nndebug.monitor.Sink objects (subclass Sink and "
                            f"override on_record/on_losses/...), got {type(sink).__name__}")
    return int(every), int(histogram_every)


_OPEN_MONITORS = {}     # id(model) -> the open Monitor watching it (see _close_earlier_monitor)


def _close_earlier_monitor(model):
    """Close a monitor still open on ``model``, with a warning.

    A training loop stopped by an error or by Ctrl-C (a notebook's stop button) without
    ``with`` or ``close()`` leaves its monitor armed for the next step: its hooks stay on
    the model, and its global module hooks on every module of the process. Watching the
    same model again (re-running the cell) would run both monitors' hooks at every step;
    the earlier one is closed instead (its findings stay readable)."""
    earlier = _OPEN_MONITORS.pop(id(model), None)
    if earlier is None or earlier.model is not model or earlier.closed:
        return
    earlier.close()
    warnings.warn(
        f"nndebug.watch: this model already had an open monitor (at step {earlier._step}; "
        "a training loop stopped without close()?). It has been closed so that its hooks do "
        "not run beside the new one's; use `with nndebug.watch(...) as mon:` or call "
        "mon.close() when a run ends.", RuntimeWarning, stacklevel=4)


def _overrides(sink, method):
    """Whether ``sink`` has its own ``method`` (not Sink's do-nothing default)."""
    return getattr(type(sink), method, None) is not getattr(Sink, method)


class Monitor:
    """Records a training run through the model's adapter; see ``nndebug.watch``."""

    def __init__(self, model, optimizer=None, *, every=1, overhead=DEFAULT_OVERHEAD,
                 tensorboard=None, histogram_every=HISTOGRAM_EVERY, sinks=(), probes=(),
                 loss_fn=None, group=None, max_history_mb=long_run.DEFAULT_MAX_HISTORY_MB,
                 save_to=None, save_every_s=long_run.DEFAULT_SAVE_EVERY_S):
        sinks, probes = list(sinks), list(probes)
        every, histogram_every = _check_arguments(every, overhead, histogram_every, sinks,
                                                  probes, loss_fn)
        max_bytes = long_run.check_options(max_history_mb, save_to, save_every_s)
        model = unwrap(model)         # DistributedDataParallel trains its .module: watch that
        optimizer = unwrap_optimizer(optimizer)   # accelerate's AcceleratedOptimizer: its inner one
        _close_earlier_monitor(model)
        self.adapter = adapter = adapt(model)
        # set-up: each observer finds its own layers, a dozen walks of the model's modules;
        # inside, they share one (adapters/base.py, structure_read_once)
        with adapter.structure_read_once():
            self.model, self.optimizer = model, optimizer
            self.every, self.overhead, self.histogram_every = every, overhead, histogram_every
            self._params, param_infos = discover.parameters(adapter, optimizer)
            layers, mode_layers = discover.layers(adapter)
            self.run = BoundedRun(     # a RunRecord that keeps under max_history_mb (history.py)
                max_bytes=max_bytes,
                framework=adapter.framework, params=param_infos, has_optimizer=optimizer is not None,
                layers=discover.layer_infos(adapter, layers),
                settings={"every": every, "overhead": overhead, "histogram_every": histogram_every})
            self.schedule = Schedule(every, overhead)
            self._clock = schedule_module.now
            self.hooks = StepHooks(adapter, self._params, layers, mode_layers, self._fail,
                                   self._statistic_failed)
            self.rows = RowCounter()      # distinct samples in the first judged batches
            self.head_rows = HeadRows(adapter, self.run.observed, self._params,   # batch 131
                                      [p.name for p in param_infos])
            self.sinks = sinks
            if tensorboard is not None:
                self.sinks.append(TensorBoardSink(tensorboard))
            # the history budget after each step, saves to save_to (long_run.py)
            self.long_run = long_run.LongRun(self, save_to, save_every_s)
            self.sinks.append(self.long_run)
            # the early batches' fingerprints (DATA_ORDER_REPEATS): a cheap pre-hook, then gone
            self.batches = BatchFingerprints(adapter, adapter.model)
            self.sinks.append(self.batches)
            self.ranks = ranks.connect(adapter, self.batches, group)   # None on one process
            if self.ranks is not None:
                self.sinks.append(self.ranks)
            # probes run once, on the first record after the warm-up steps: each is called as
            # probe(monitor, record) and returns findings (or None) that join findings()
            self.probes = probes
            # nd.check_dependencies runs once, early, by itself: one object is both a sink (it
            # keeps a reference to each step's inputs) and a probe (it runs the check)
            from ..probes.dependencies.watching import DependencyWatch
            dependencies = DependencyWatch(adapter, self.batches)
            self.sinks.append(dependencies)
            self.probes.append(dependencies)
            self.extra_findings = []
            self._closed = False
            self._step = 0
            self._pending = {"train": PendingLosses("train"), "val": PendingLosses("val")}
            self.loss_jumps = LossJumps()     # a loss far above its recent range: look closer
            self._findings_cache = None
            self._loads_judged = 0    # checkpoint loads seen when findings were worked out
            self._validated_at = None    # the step whose weights weights_validated() took
            self._judged_records = 0     # judged records so far (every 10th keeps histograms)
            self._sink_methods = {}      # method -> (sink ids, [(sink, bound method)]): _sinks_with
            self._excess_buffers = ([], None)   # (parameter indices, buffers): see _held_minus_delivered
            self._nonfinite_loss_seen = False   # a NaN/Inf loss arrived since the last judged record
            self._error = None        # the first internal error (the run goes on without
            # what happens around the model: the loss call, unregistered parts, frozen tensors,
            # batch-norm batch sizes, the framework's warnings (around.py -> run.observed)
            self.around = Around(adapter, self.run.observed, loss_fn=loss_fn,
                                 optimizer_held=discover.optimizer_held(adapter, optimizer),
                                 current_step=lambda: self._step, on_error=self._note_error,
                                 optimizer=optimizer, parameters=self._params)
            self.penalties = ParameterPenalties(adapter, self.run.observed, self._params, optimizer,
                                                self._note_error)   # L2 by hand + weight_decay
            self.other_turns = OtherTurnGradients(adapter, self.run.observed, self._params, optimizer,
                                                  lambda: self._step, self._note_error)   # GAN turns
            self.other_clearing = OtherOptimizerClearing(   # a critic's optimizer never zeroed
                adapter, self.run.observed, optimizer, lambda: self._step, self._note_error)
            self.late_gradients = LateGradients(adapter, self.run.observed, adapter.model, optimizer,
                                                lambda: self._step, self._note_error)   # batch 50
            self.rewritten_weights = RewrittenWeights(adapter, self.run.observed, optimizer,
                                                      lambda: self._step,
                                                      self._note_error)   # batch 58
            self.self_references = SelfReferences(adapter, self.run.observed,
                                                  self._note_error)   # batch 58
            self.around.loss_graph.readers.append(self.self_references)   # its scan
            self.around.loss_graph.readers += [   # real-bug batch 52: BCE arguments swapped,
                SwappedLossArguments(self.run.observed),   # a critic's score squashed
                SquashedScores(self.run.observed)]
            self.around.loss_graph.readers.append(   # real-bug batch 269: two targets read
                RepeatedOutputCalls(self.run.observed))   # one layer called twice
            self.around.loss_graph.readers.append(   # real-bug batch 60: one-value groups
                SingleValueNorms(self.run.observed, adapter.model))
            self.layer_sites = [   # real-bug batch 60: dropout as the output, lost statistics
                DropoutOutputs(adapter, self.run.observed, adapter.model, lambda: self._step,
                               self._note_error),
                RunningBuffers(adapter, self.run.observed, adapter.model, self._note_error)]
            self.derivatives = DerivativeCalls(adapter, self.run.observed, self._params,
                                               lambda: self._step,
                                               self._note_error)   # batch 56: autograd.grad
            self.around.loss_graph.readers.append(self.derivatives.norms)
            self.tiny_norms = TinyNormBatches(adapter, self.run.observed, lambda: self._step,
                                              self._note_error)   # core variants: any step
            self.hooks.quiet = self.around.attention.quiet   # our hooks' measurements skip its mode
            self.step_snapshot = SnapshotBeforeOptimizerStep(   # step_snapshot.py (batch 143)
                adapter, self.hooks, optimizer, self._note_error)
            self._arm()               # detailed records: a monitor never breaks training)
            self._last_exit = self._clock()
            self._last_full_step = -1     # the last step closed the long way (step() in full)
            self._plain_until = 0         # steps before this one close the short way
            self._step_sinks = []         # [(sink, bound on_step)] for the short way
            _OPEN_MONITORS[id(model)] = self

    # --- the public surface -------------------------------------------------------------
    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()
        return False

    def step(self, loss=None, val_loss=None):
        """Record one optimizer step: call it after ``optimizer.step()``.

        ``loss``: this step's training loss (a scalar tensor or a number; NaN is fine,
        it becomes a finding). ``val_loss``: optional validation loss, for OVERFITTING.
        """
        step = self._step
        if step < self._plain_until and val_loss is None and loss is not None:
            # a plain step: the short way (a loss that is no scalar raises here as below)
            self._close_plain_step(step, loss_value(self.adapter, loss, "loss"))
            return
        entered = self._clock()
        if self._closed:
            raise RuntimeError("this monitor is closed; start a new one with nndebug.watch(...)")
        if loss is None:
            raise ValueError("step(loss) needs this step's training loss (a scalar tensor or a "
                             "number), called once per optimizer step after optimizer.step()")
        self._pending["train"].add(step, loss_value(self.adapter, loss, "loss"))
        if val_loss is not None:
            self._pending["val"].add(step, loss_value(self.adapter, val_loss, "val_loss"))
            self.around.validation_draws.take(self.around.evaluations.held, step)
            self.around.feature_moments.take(self.around.evaluations.held, step)
            self.around.input_ranges.take(self.around.evaluations.held, step)   # batch 59
            self.around.teacher_inputs.take(step)   # teacher_forced_validation.py (batch 59)
            self.around.evaluations.saw_validation()   # validation_inputs.py
            self.around.validation_sets.saw_validation()   # validation_sets.py
            if self._validated_at != step:   # not fingerprinted already (weights_validated)
                self.around.restored.saw_validation(step)   # restored_checkpoints.py (batch 139)
            self.around.windows.saw_validation()       # window_overlap.py
        was_armed = self.hooks.armed
        check_jumps = self.loss_jumps.is_check_step(step)
        if was_armed:
            self.hooks.disarm()
            self.step_snapshot.disarm()
            self.around.disarm()
            self.around.on_loss(loss)
            self.penalties.on_loss(step, loss)   # parameter_penalties.py
            self.other_turns.release()   # other_turn_gradients.py: drops its finished hook
            self.other_clearing.release()   # other_optimizer_clearing.py: the same
            self.late_gradients.disarm()   # late_gradients.py (first recorded steps)
            for site in self.layer_sites:   # dropout_outputs.py, running_buffers.py
                site.disarm()
            self.self_references.disarm()   # self_references.py (first recorded steps)
            try:
                self._record(step)
            except Exception as error:    # never break the user's training
                self._fail(error)
        elif len(self._pending["train"]) >= PENDING_LOSSES_MAX:
            self._flush_losses()
        if check_jumps:
            self._check_loss_jumps()
        self._step += 1
        self.run.n_steps = self._step
        self._findings_cache = None
        self._tell_sinks("on_step", step)
        self._decide_next(step, entered, was_armed)

    def _decide_next(self, step, entered, was_armed):
        """Step ``step`` is closed: the schedule decides whether the next one is recorded
        (its hooks go on now) and until which step ``step()`` may take the short way."""
        interval = entered - self._last_exit
        kind = self.schedule.next_record(step + 1, interval, was_armed,
                                         steps=step - self._last_full_step)
        if kind is not None:
            self._arm(kind)
        self._last_full_step = step
        self._step_sinks = self._sinks_with("on_step")
        self._last_exit = exit_time = self._clock()
        self.schedule.charge(exit_time - entered)
        # up to the step before the first one the schedule could record: closing that one
        # arms the next (schedule.first_possible_record), asked after this step's own cost
        # is charged (asked before, the credit at that step fell short by it every time:
        # a full step() every few steps, and no extra record, on a 0.3 ms MLP step)
        self._plain_until = 0 if kind is not None else \
            self.schedule.first_possible_record(step + 1) - 1

    def _close_plain_step(self, step, value):
        """``step()`` for a plain step whose loss is a scalar (a number, or a tensor left on its
        device), with nothing due before ``_plain_until``: keep the loss, check the losses
        (one transfer for those on a device) for a jump at a check step,
        count the step, tell the sinks. No clock is read (unless the loss jumped): the
        schedule accounts these steps together at the next full ``step()``."""
        self._pending["train"].add(step, value)
        check_jumps = self.loss_jumps.is_check_step(step)
        if check_jumps:
            self._check_loss_jumps()
        self._step = step + 1
        run = self.run
        run.n_steps = step + 1
        self._findings_cache = None
        for sink, bound in self._step_sinks:
            try:
                bound(run, step)
            except Exception as error:
                self._drop_sink(sink, error)
                self._plain_until = 0
        if check_jumps and self.schedule.looking_closer:     # the loss jumped, or went NaN:
                                                             # record next
            self._decide_next(step, self._clock(), False)

    def weights_validated(self):
        """The weights as they are now are those a validation loss measured that reaches the
        next ``step(val_loss=...)`` (a trainer's callback evaluates between two steps and
        hands the loss over at the next one). Their fingerprint is taken now, not one update
        later, so that a "best" checkpoint loaded after training is matched with the pass
        that saved it (BEST_CHECKPOINT_NOT_BEST; real-bug batch 145)."""
        if self._closed:
            return
        self.around.restored.saw_validation(self._step)   # never raises (it notes errors)
        self._validated_at = self._step

    def findings(self):
        """The findings so far, most severe first (causes before the symptoms they explain)."""
        self._flush_losses()
        held = self._refresh_optimizer_membership()
        loads = len(self.around.restored.loads)
        if loads != self._loads_judged:
            # weights loaded since the findings were worked out (restored_checkpoints.py):
            # a Trainer that saves a checkpoint asks for them (the monitor's state goes into
            # it), then reloads its best checkpoint after the last step
            self._findings_cache, self._loads_judged = None, loads
        if self._findings_cache is None:
            with self.adapter.structure_read_once():    # a dozen readers walk the modules
                self.around.before_findings(held)
            self.late_gradients.read()        # late_gradients.py
            self.layer_sites[1].read()        # running_buffers.py (batch 60)
            self.rewritten_weights.read()     # rewritten_weights.py
            self._read_norms_at_findings()    # NO_GRADIENT: trained between records
            extra = list(self.extra_findings)
            for sink in list(self.sinks):      # first, so a sink can bring the run up to date
                extra += self._call_sink(sink, "findings") or []
            # the rules judge the judged records only: those of a schedule that does not
            # depend on time, so that the same run gets the same verdict (schedule.py)
            found = rules.diagnose(self.run.judged_view()) + extra
            for sink in list(self.sinks):      # then a sink may annotate them (e.g. the ranks)
                found = self._call_sink(sink, "annotate", found) or found
            # MONITOR_ERROR: the monitor itself could not measure part of the run (the user's
            # step ran as ever), so the findings may be incomplete.
            if self._error is not None:
                found.append(Finding(
                    "MONITOR_ERROR", "info", "", None,
                    "nndebug could not measure some of this model's statistics, so the "
                    f"findings may be incomplete ({self._error}).",
                    {"error": self._error}, "Please report this model to nndebug's authors."))
            self._findings_cache = sort_findings(found)
        return list(self._findings_cache)

    def report(self):
        """A readable text report: findings with their evidence and fixes, and a summary."""
        from ..report.text import render
        return render(self.run, self.findings())

    def to_dict(self):
        """Findings and the recorded run as a JSON-serialisable dict."""
        from ..report.json import run_to_dict
        return run_to_dict(self.run, self.findings())

    def plot(self, path, title=None):
        """Write a PNG dashboard (loss with findings, gradient flow, activations) to ``path``."""
        from ..report.plots import plot_dashboard
        return plot_dashboard(self.run, self.findings(), path, title=title)

    def save_html(self, path, title="nndebug report"):
        """Write one self-contained HTML report (findings linked to their plots, the plots
        embedded; it loads nothing from anywhere) to ``path``; returns the path."""
        from ..report.html import write_page
        return write_page(path, self.run, self.findings(), title=title)

    def _repr_html_(self):
        """Jupyter shows the findings, their evidence and fixes, and the plots inline."""
        from ..report.html import run_fragment
        return run_fragment(self.run, self.findings())

    def save(self, path):
        """Write the run (history, findings, settings) to ``path`` now, atomically; read it
        back with ``nndebug.load_run(path)`` or ``nndebug report PATH``."""
        return long_run.save(self, path)

    def state_dict(self):
        """The monitor's state for a checkpoint: plain data (strings, numbers, lists, dicts,
        tensors) that ``torch.load`` reads with its defaults; see ``long_run.py``."""
        return long_run.state_dict(self)

    def load_state_dict(self, state):
        """Continue the run saved by ``state_dict()`` (call it before the first step): step
        numbers continue, the rules see the whole curve, earlier findings stay."""
        long_run.load_state_dict(self, state)
        self.around.resumed.resuming()     # what the optimizer resumed with: resumed_optimizers.py

    def close(self):
        """Remove every hook the monitor installed; findings stay readable."""
        if self._closed:
            return
        self.hooks.disarm()
        self.step_snapshot.disarm()  # step_snapshot.py
        self.other_turns.close()     # other_turn_gradients.py
        self.other_clearing.close()  # other_optimizer_clearing.py
        self.late_gradients.close()  # late_gradients.py
        for site in self.layer_sites:   # dropout_outputs.py, running_buffers.py
            site.close()
        self.derivatives.close()     # derivative_calls.py
        self.tiny_norms.close()      # tiny_norm_batches.py
        self.rewritten_weights.close()  # rewritten_weights.py
        self.self_references.disarm()   # self_references.py
        self.around.close()
        self._closed = True
        if _OPEN_MONITORS.get(id(self.model)) is self:
            del _OPEN_MONITORS[id(self.model)]
        self._plain_until = 0
        self._flush_losses()
        for sink in list(self.sinks):
            self._call_sink(sink, "close")

    @property
    def loss_fn(self):
        """The ``loss_fn`` given to ``watch``, ready to call: a loss module as it is, a function
        wrapped so that watch sees what reaches the loss (None without one)."""
        return self.around.losses.wrapped()

    @property
    def closed(self):
        return self._closed

    @property
    def n_records(self):
        return len(self.run.records)

    # --- losses -----------------------------------------------------------------------
    def _flush_losses(self):
        """Copy pending losses to the host in one transfer (per curve)."""
        for curve, pending in self._pending.items():
            if not pending.items:
                continue
            tensors = pending.tensors()
            host = [float(v) for v in to_host_many(self.adapter, tensors)] if tensors else []
            self._take_losses(curve, host)

    def _check_loss_jumps(self):
        """At fixed steps: a loss far above its recent range judges the next steps in
        detail (loss_jumps.py, Schedule.loss_jumped). Losses read on the host go to the
        check as they are; they move into the run only now and then (losses.py), or at once
        where they must be copied from a device anyway or a sink wants them."""
        pending = self._pending["train"]
        if pending.on_device or len(pending) >= PENDING_LOSSES_MAX or \
                self._sinks_with("on_losses"):
            self._flush_losses()
        else:
            self.loss_jumps.observe(*pending.unchecked())
        try:
            if self.loss_jumps.check_newest() is not None:
                self.schedule.loss_jumped()
            if self.loss_jumps.newest_nonfinite is not None:
                # a NaN/Inf loss between two judged records: judge the next steps now (as a
                # judged record that saw one does), not at the next judged step - which may
                # come hundreds of steps later, or after the run has ended
                self.schedule.escalate()
        except Exception as error:        # never break the user's training
            self._note_error(error)

    def _take_losses(self, curve, tensor_values):
        """Move one curve's pending losses into the run; returns the values moved."""
        steps, values = self._pending[curve].take(tensor_values)
        if not all(map(math.isfinite, values)):
            self._nonfinite_loss_seen = True
        if steps:
            self.run.add_losses(curve, steps, values)
            if curve == "train":
                self.loss_jumps.observe(steps, values)
            self._tell_sinks("on_losses", steps, values, curve)
        return values

    def _refresh_optimizer_membership(self):
        """Param groups may be added after watch() started (add_param_group): look again.
        Returns the ids of the parameters the optimizer holds now (None without one)."""
        try:
            held = discover.optimizer_held(self.adapter, self.optimizer)
        except TypeError:
            return None
        if held is None:
            return None
        for info, p in zip(self.run.params, self._params):
            if info.in_optimizer != (id(p) in held):
                info.in_optimizer = id(p) in held
                self._findings_cache = None
        return held

    def _read_norms_at_findings(self):
        """Each trainable tensor's weight norm now, in one batched call and one host copy
        (``run.observed.norms_at_findings``). Detailed records are sparse: a task head
        trained only on the last fifth of a run (a continual learner's, real-bug batch 325)
        got gradients on no judged record and was told NO_GRADIENT; its weights moved all
        the same, and this shows it."""
        params = getattr(self, "_params", None)
        if not params:
            return
        try:
            norms = self.adapter.to_numpy(self.adapter.norms(params))
            self.run.observed.norms_at_findings = [(i, float(v)) for i, v in enumerate(norms)
                                                   if math.isfinite(v)]   # NaN says nothing
        except Exception as error:        # a reading, never a reason to fail findings
            self._note_error(error)

    # --- one recorded step -------------------------------------------------------------------
    def _arm(self, kind=JUDGED):
        """Hooks on for the coming step (``kind``: a judged or an extra record). Only judged
        records keep the heavy statistics, every ``histogram_every``-th of them: which steps
        have them must not depend on the clock."""
        self._recording = kind
        heavy = kind == JUDGED and self._judged_records % self.histogram_every == 0
        self.hooks.arm(heavy=heavy, rows=kind == JUDGED and self.rows.wanted())
        self.step_snapshot.arm()   # step_snapshot.py: the update is the optimizer's
        self.around.arm(self._step, closer_look=self.schedule.closer_look)
        self.late_gradients.arm(self._step)   # late_gradients.py
        for site in self.layer_sites:   # dropout_outputs.py, running_buffers.py (batch 60)
            site.arm(self._step)
        self.self_references.arm(self._step)   # self_references.py

    def _record(self, step):
        adapter, xp, hooks = self.adapter, self.adapter.xp, self.hooks
        params, delivered = self._params, hooks.delivered
        packet = Packet()
        # every per-parameter norm of this step in ONE batched call: what backward delivered,
        # what .grad holds, their difference, the weights, and the update of this step
        got = [i for i, d in enumerate(delivered) if d is not None]
        comparable = []
        for i in got:
            held = getattr(params[i], "grad", None)
            if held is not None and tuple(held.shape) == tuple(delivered[i].shape):
                comparable.append((i, held))
        identical, comparable = self._split_identical(comparable, delivered)
        held_list = [h for _, h in comparable]
        # .grad - delivered (one batched subtraction), and the update: the weights before the
        # step minus after, computed in place in the private copy taken before it (its norm
        # is the update's; no second model-sized allocation)
        excess = self._held_minus_delivered([i for i, _ in comparable], held_list, delivered)
        updates = adapter.subtract_in_place(hooks.snapshot, params) if params else []
        groups = zip(PARAMETER_STATISTICS,
                     ([delivered[i] for i in got], held_list, excess, params, updates))
        groups = [(key, group) for key, group in groups if group]
        tensors = [t for _, group in groups for t in group]
        if tensors:
            packet.add_joined(adapter.norms(tensors), [(key, len(group)) for key, group in groups])
        forward = hooks.measured_forward()
        for stat, value in forward.inputs:
            packet.add(("input", stat), value)
        for layer, stats in forward.layers:
            for stat, value in stats:
                packet.add(("layer", layer, stat), value)
        if forward.output is not None:
            packet.add("output", forward.output)
        for curve, key in (("train", "loss"), ("val", "val")):
            for value in self._pending[curve].tensors():
                packet.add(key, xp.reshape(value, ()))

        self.around.pack(packet)
        self.head_rows.pack(packet, forward.leaves, delivered)   # head_rows.py (batch 131)
        values, losses = packet.send(adapter)      # the one device-to-host copy of this step
        row_sample = values.pop(("input", "rows"), None)
        self._take_losses("train", losses["loss"])
        self._take_losses("val", losses["val"])
        record, histograms = build_record(
            step, len(params), values, got, [i for i, _ in comparable],
            None if forward.output is None else forward.output.shape,
            on_error=self._statistic_failed, identical=identical,
            emptied_after_step=self.step_snapshot.written_after_step(params))
        self.around.take(values, record)
        self.head_rows.take(values, record)
        if row_sample is not None:
            self.rows.take(row_sample, record, self.run.observed)
        record.eval_layers = list(forward.eval_layers)
        if "A" in hooks.events and len(self.run.observed.input_gradient_passes) < 64:
            # real-bug batch 87: backward passes that reached .grad right after a forward on
            # an input requiring grad (an attack's loss.backward()) before the step's last
            # training forward-and-backward ("TB"; a GAN generator's pass through the
            # watched discriminator comes after it), and all of this step's passes
            # (rules/setup.py, GRADIENTS_ACCUMULATING)
            events = "".join(hooks.events)
            before = events[:max(events.rfind("TB"), 0)]
            self.run.observed.input_gradient_passes.append(
                (step, before.count("AB"), events.count("B")))
        if len(self.run.observed.backward_passes) < BACKWARD_PASS_ROWS:
            # backward passes that reached the first weight's .grad this step: gradients can
            # be cleared between two passes only (GRADIENTS_DISCARDED, rules/setup.py)
            self.run.observed.backward_passes.append((step, hooks.events.count("B")))
        record.lrs = self._learning_rates()
        record.judged = self._recording == JUDGED
        self.run.records.append(record)
        if histograms:
            self.run.histograms.append((step, histograms))
        hooks.clear()
        if record.judged:
            self._judged_records += 1
            # a NaN escalates (records the next steps, to find where it comes from) only
            # through what the run decides - judged records and the losses - never through
            # a record the clock let through
            if not record_finite(record) or self._nonfinite_loss_seen:
                self.schedule.escalate()
            self._nonfinite_loss_seen = False
        self._tell_sinks("on_record", record, histograms)
        if self.probes and record.judged and step >= WARMUP_RECORDS:
            self._run_probes(record)

    def _run_probes(self, record):
        """Each probe once, on the first record after the warm-up; its findings are kept."""
        probes, self.probes = self.probes, []
        for probe in probes:
            try:
                self.extra_findings.extend(probe(self, record) or [])
            except Exception as error:    # a probe never breaks training
                self._note_error(error)

    def _split_identical(self, comparable, delivered):
        """``(identical, rest)``: the parameters whose ``.grad`` holds exactly what backward
        delivered (indices), and the others (``(index, .grad)`` pairs, as ``comparable``).

        In a healthy step every ``.grad`` is what backward delivered: its norm is the
        delivered one and the excess is zero, with nothing to copy, subtract or reduce (on a
        52-layer MLP, two of the five norm groups and a model's worth of copies a record).
        Compared on the host only: each comparison answers a Python bool, which on an
        accelerator would wait for the device once per parameter."""
        if not comparable or not self.adapter.on_host(comparable[0][1]):
            return [], comparable
        identical, rest = [], []
        for index, held in comparable:
            if self.adapter.identical(held, delivered[index]):
                identical.append(index)
            else:
                rest.append((index, held))
        return identical, rest

    def _held_minus_delivered(self, indices, held, delivered):
        """``.grad - delivered`` for these parameters. On the CPU it is computed in buffers
        kept from one record to the next (allocating and freeing a model's worth at every
        record fragments the heap: the process grew by about a megabyte a record on a
        24-layer MLP). On an accelerator the caching allocator reuses freed blocks, and a
        kept buffer would raise the peak of every forward and backward by a model's worth of
        gradients: there the difference is a temporary."""
        if not held:
            return []
        if not self.adapter.on_host(held[0]):
            return self.adapter.differences(held, [delivered[i] for i in indices])
        key, buffers = self._excess_buffers
        buffers = self.adapter.copies_into(buffers if key == indices else None, held)
        self._excess_buffers = (indices, buffers)
        return self.adapter.subtract_in_place(buffers, [delivered[i] for i in indices])

    def _learning_rates(self):
        if self.optimizer is None:
            return []
        try:
            return [float(lr) for lr in self.adapter.optimizer_learning_rates(self.optimizer)]
        except (KeyError, TypeError, ValueError):
            return []

    # --- sinks and errors -----------------------------------------------------------------
    def _tell_sinks(self, method, *args):
        run = self.run
        for sink, bound in self._sinks_with(method):
            try:
                bound(run, *args)
            except Exception as error:
                self._drop_sink(sink, error)

    def _sinks_with(self, method):
        """[(sink, its bound method)] of the sinks that override ``method`` (the do-nothing
        defaults are not even called) and need it (a sink done with per-step work says so
        in ``unneeded``): worked out once per method while the sinks and what they need
        stay the same, since on_step runs at every step."""
        key = tuple((id(sink), sink.unneeded) for sink in self.sinks)
        found = self._sink_methods.get(method)
        if found is None or found[0] != key:
            found = (key, [(sink, getattr(sink, method)) for sink in self.sinks
                           if _overrides(sink, method) and method not in sink.unneeded])
            self._sink_methods[method] = found
        return found[1]

    def _call_sink(self, sink, method, *args):
        """A sink that raises is dropped (and noted): it never breaks training."""
        try:
            return getattr(sink, method)(self.run, *args)
        except Exception as error:
            self._drop_sink(sink, error)
            return None

    def _drop_sink(self, sink, error):
        if sink in self.sinks:
            self.sinks.remove(sink)
        self._note_error(error)

    def _note_error(self, error):
        if self._error is None:
            self._error = f"{type(error).__name__}: {error}"

    def _statistic_failed(self, what, error):
        """One statistic could not be measured: it alone is missing from the record, the
        record is kept and recording goes on (noted in a MONITOR_ERROR finding)."""
        if self._error is None:
            self._error = f"the {what} could not be measured ({type(error).__name__}: {error})"

    def _fail(self, error):
        """Remember the first internal error and stop detailed recording (losses go on)."""
        self._note_error(error)
        self.hooks.drop_forward()
        self.schedule.stop()
