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
- Which steps are recorded: at most one every ``every`` steps, and, by default, only as
  often as keeps the monitor's share of the training time under ``overhead`` (5%). The
  monitor times the steps it does not record and what recording costs, and spends its
  time budget like a token bucket: tiny models get a record every ~10-20 steps, big ones
  every step. Steps 0, 1, 2 and then every power of two (4, 8, 16, ...) are always
  recorded: the early phase, where many bugs show, on a log time scale (charged to the
  budget like any record). A NaN seen anywhere makes it record the following steps too. ``overhead=None`` records
  exactly every ``every`` steps (reproducible, e.g. for tests).

Data flows one way: adapter -> ``nndebug.records`` (NumPy) -> ``nndebug.rules`` ->
findings -> ``nndebug.report``.
"""
import math
import time

import numpy as np

from . import rules
from .adapters import adapt
from .findings import Finding, sort_findings
from .records import (BATCHNORM_TYPES, DROPOUT_TYPES, PASS_THROUGH_TYPES, LayerInfo, ParamInfo,
                      RunRecord, StepRecord, layer_kind)

DEFAULT_OVERHEAD = 0.05      # share of training time the monitor may spend by default
WARMUP_RECORDS = 3           # steps 0-2 are always recorded, then steps 4, 8, 16, 32, ...
ESCALATED_RECORDS = 20       # records spent, at most, on the steps after a NaN is seen
HISTOGRAM_EVERY = 10         # every 10th record also keeps histograms and spread statistics
HISTOGRAM_SAMPLE = 4096      # values per layer kept for a histogram
HISTOGRAM_BINS = 40
MAX_CALLS_PER_LAYER = 16     # a shared layer called many times per forward: first 16 calls
OUTPUT_ROWS = 256            # rows of the model output copied to check for probabilities
OUTPUT_MAX_COLUMNS = 4096
PENDING_LOSSES_MAX = 1024    # unrecorded losses are copied to the host in one go at most this late


def watch(model, optimizer=None, *, every=1, overhead=DEFAULT_OVERHEAD, tensorboard=None,
          histogram_every=HISTOGRAM_EVERY):
    """Start monitoring ``model`` (and ``optimizer``); returns a ``Monitor``.

    Call ``mon.step(loss)`` once per optimizer step, after ``optimizer.step()``; read
    ``mon.findings()`` / ``mon.report()`` at any time; ``mon.close()`` (or leaving the
    ``with`` block) removes every hook. ``every``: record detailed statistics at most
    every ``every`` steps. ``overhead``: the share of training time the monitor may use
    (None: record exactly every ``every`` steps). ``tensorboard``: a log directory to
    write scalars and histograms to (needs torch or tensorboardX).
    """
    return Monitor(model, optimizer, every=every, overhead=overhead, tensorboard=tensorboard,
                   histogram_every=histogram_every)


class _Forward:
    """Statistics of one forward pass, collected by the hooks until it is committed."""

    __slots__ = ("layers", "counts", "inputs", "output", "eval_layers")

    def __init__(self):
        self.layers, self.counts = [], {}
        self.inputs, self.output, self.eval_layers = [], None, []


class Monitor:
    """Records a training run through the model's adapter; see ``nndebug.watch``."""

    def __init__(self, model, optimizer=None, *, every=1, overhead=DEFAULT_OVERHEAD,
                 tensorboard=None, histogram_every=HISTOGRAM_EVERY):
        if isinstance(every, bool) or not isinstance(every, int) or every < 1:
            raise ValueError(f"every must be a positive integer (record at most every N steps), "
                             f"got {every!r}")
        if overhead is not None and not (isinstance(overhead, (int, float)) and 0 < overhead <= 1):
            raise ValueError(f"overhead must be a share of the training time in (0, 1], or None "
                             f"to record exactly every `every` steps; got {overhead!r}")
        if isinstance(histogram_every, bool) or not isinstance(histogram_every, int) \
                or histogram_every < 1:
            raise ValueError(f"histogram_every must be a positive integer, got {histogram_every!r}")
        self.adapter = adapter = adapt(model)
        self.model, self.optimizer = model, optimizer
        self.every, self.overhead, self.histogram_every = every, overhead, histogram_every
        self._xp = adapter.xp

        held = None
        if optimizer is not None:
            try:
                held = {id(p) for p in adapter.optimizer_parameters(optimizer)}
            except (AttributeError, KeyError, TypeError) as error:
                raise TypeError(f"optimizer must be an optimizer of the model's framework with "
                                f".param_groups (each a dict with 'params'); got "
                                f"{type(optimizer).__name__} ({error})") from None
        trainable = [(n, p) for n, p in adapter.named_parameters() if adapter.requires_grad(p)]
        self._params = [p for _, p in trainable]     # aligned with run.params
        params = [ParamInfo(n, tuple(p.shape), True, None if held is None else id(p) in held)
                  for n, p in trainable]
        self._layers, self._mode_layers, seen = [], [], set()
        for name, module in adapter.named_modules():
            if id(module) in seen:
                continue
            seen.add(id(module))
            kind = adapter.module_type(module)
            if kind in DROPOUT_TYPES or kind in BATCHNORM_TYPES:
                self._mode_layers.append((name, module))
            if adapter.is_leaf_module(module) and kind not in PASS_THROUGH_TYPES:
                self._layers.append((name, module, layer_kind(kind)))
        self.run = RunRecord(
            framework=adapter.framework, params=params, has_optimizer=optimizer is not None,
            layers=[LayerInfo(n, adapter.module_type(m), k) for n, m, k in self._layers],
            settings={"every": every, "overhead": overhead, "histogram_every": histogram_every})

        self._handles = []
        self._armed = False
        self._closed = False
        self._step = 0
        self._pending, self._pending_val = [], []
        self._findings_cache = None
        # scheduling: a token bucket of time (seconds) the monitor may spend
        self._credit = 0.0
        self._plain_intervals = []       # durations of unrecorded steps (seconds)
        self._uncharged = []             # armed intervals waiting for a plain-step estimate
        self._escalated_left = ESCALATED_RECORDS
        self._escalate = False
        self._since_record = 0
        self._last_exit = None
        self._error = None               # the first internal error (the run goes on without
        self._writer = None              # detailed records: a monitor never breaks training)
        # the hooks, made once: guarded so that an exotic output cannot break the forward
        self._root_hooks = (self._guard(self._on_root_input), self._guard(self._on_root_output))
        self._layer_hooks = [(module, self._guard(self._make_layer_hook(name, kind)))
                             for name, module, kind in self._layers]
        if tensorboard is not None:
            from .report.tensorboard import TensorBoardWriter
            self._writer = TensorBoardWriter(tensorboard)
        self._arm()
        self._last_exit = time.perf_counter()

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
        entered = time.perf_counter()
        if self._closed:
            raise RuntimeError("this monitor is closed; start a new one with nndebug.watch(...)")
        if loss is None:
            raise ValueError("step(loss) needs this step's training loss (a scalar tensor or a "
                             "number), called once per optimizer step after optimizer.step()")
        step = self._step
        self._pending.append((step, self._loss_value(loss, "loss")))
        if val_loss is not None:
            self._pending_val.append((step, self._loss_value(val_loss, "val_loss")))
        was_armed = self._armed
        if was_armed:
            self._disarm()
            try:
                self._record(step)
            except Exception as error:    # never break the user's training
                self._fail(error)
        elif len(self._pending) >= PENDING_LOSSES_MAX:
            self._flush_losses()
        self._step += 1
        self.run.n_steps = self._step
        self._findings_cache = None
        if self._next_is_recorded(entered, was_armed):
            self._arm()
        self._last_exit = exit_time = time.perf_counter()
        self._charge(exit_time - entered)

    def findings(self):
        """The findings so far, most severe first (causes before the symptoms they explain)."""
        self._flush_losses()
        self._refresh_optimizer_membership()
        if self._findings_cache is None:
            found = rules.diagnose(self.run)
            if self._error is not None:
                found.append(Finding(
                    "MONITOR_ERROR", "info", "", None,
                    "nndebug could not measure this model's statistics, so only the loss was "
                    f"watched and the findings may be incomplete ({self._error}).",
                    {"error": self._error}, "Please report this model to nndebug's authors."))
            self._findings_cache = sort_findings(found)
        return list(self._findings_cache)

    def report(self):
        """A readable text report: findings with their evidence and fixes, and a summary."""
        from .report.text import render
        return render(self.run, self.findings())

    def to_dict(self):
        """Findings and the recorded run as a JSON-serialisable dict."""
        from .report.json import run_to_dict
        return run_to_dict(self.run, self.findings())

    def plot(self, path, title=None):
        """Write a PNG dashboard (loss with findings, gradient flow, activations) to ``path``."""
        from .report.plots import plot_dashboard
        return plot_dashboard(self.run, self.findings(), path, title=title)

    def close(self):
        """Remove every hook the monitor installed; findings stay readable."""
        if self._closed:
            return
        self._disarm()
        self._closed = True
        self._flush_losses()
        if self._writer is not None:
            self._writer.close()

    def _refresh_optimizer_membership(self):
        """Param groups may be added after watch() started (add_param_group): look again."""
        if self.optimizer is None:
            return
        try:
            held = {id(p) for p in self.adapter.optimizer_parameters(self.optimizer)}
        except (AttributeError, KeyError, TypeError):
            return
        for info, p in zip(self.run.params, self._params):
            if info.in_optimizer != (id(p) in held):
                info.in_optimizer = id(p) in held
                self._findings_cache = None

    @property
    def closed(self):
        return self._closed

    @property
    def n_records(self):
        return len(self.run.records)

    # --- loss values ------------------------------------------------------------------
    def _loss_value(self, value, what):
        adapter = self.adapter
        if adapter.is_tensor(value):
            if math.prod(value.shape) != 1:
                raise ValueError(f"step({what}=...) expects a scalar, got a tensor of shape "
                                 f"{tuple(value.shape)}; pass the mean loss (e.g. loss.mean())")
            detached = adapter.detach(value)
            if isinstance(detached, np.ndarray):
                return float(detached.reshape(-1)[0])
            return detached
        if hasattr(value, "item") and hasattr(value, "shape"):   # a NumPy scalar or array
            array = np.asarray(value, dtype=float)
            if array.size != 1:
                raise ValueError(f"step({what}=...) expects a scalar, got shape {array.shape}")
            return float(array.reshape(-1)[0])
        try:
            return float(value)
        except (TypeError, ValueError):
            raise TypeError(f"step({what}=...) expects a number or a scalar tensor, got "
                            f"{type(value).__name__}") from None

    def _flush_losses(self):
        """Copy pending losses to the host in one transfer (per curve)."""
        for train in (True, False):
            pending = self._pending if train else self._pending_val
            tensors = [v for _, v in pending if not isinstance(v, float)]
            host = [float(v) for v in self._to_host_many(tensors)] if tensors else []
            if not all(math.isfinite(v) for v in self._take_losses(train, host)):
                self._escalate = True     # record the next steps: find where the NaN comes from

    def _take_losses(self, train, tensor_values):
        """Move the pending losses of one curve into the run; ``tensor_values`` are the host
        values of its pending tensors, in order (numbers were taken as they are). Returns
        the values added."""
        pending = self._pending if train else self._pending_val
        steps, values = ((self.run.loss_steps, self.run.losses) if train
                         else (self.run.val_steps, self.run.val_losses))
        host = iter(tensor_values)
        new_steps = [s for s, _ in pending]
        new_values = [v if isinstance(v, float) else next(host) for _, v in pending]
        pending.clear()
        steps.extend(new_steps)
        values.extend(new_values)
        if self._writer is not None and new_steps:
            self._writer.losses(new_steps, new_values, "loss/train" if train else "loss/val")
        return new_values

    def _to_host_many(self, tensors):
        """One device-to-host copy for a list of small tensors (flattened, concatenated)."""
        try:
            return self.adapter.to_host(self._xp.concat([self._xp.asfloat(t) for t in tensors]))
        except (RuntimeError, TypeError, ValueError):   # mixed devices or dtypes: one by one
            return np.concatenate([np.asarray(self.adapter.to_host(t), dtype=float).reshape(-1)
                                   for t in tensors])

    # --- hooks ------------------------------------------------------------------------
    def _arm(self):
        adapter = self.adapter
        self._armed = True
        self._delivered = [None] * len(self._params)
        self._forward, self._buffer = None, _Forward()
        self._heavy = len(self.run.records) % self.histogram_every == 0
        self._snapshot = adapter.copies(self._params)
        handles = self._handles
        self._hook_tables = adapter.tensor_hook_tables(self._params)
        for index, p in enumerate(self._params):
            handle = adapter.add_tensor_hook(p, self._make_grad_hook(index))
            if handle is not None:
                handles.append(handle)
        root = adapter.model
        on_input, on_output = self._root_hooks
        handles.append(adapter.add_forward_pre_hook(root, on_input))
        for module, hook in self._layer_hooks:
            handles.append(adapter.add_forward_hook(module, hook))
        handles.append(adapter.add_forward_hook(root, on_output))

    def _guard(self, hook):
        def guarded(*args):
            try:
                hook(*args)
            except Exception as error:    # never break the user's forward pass
                self._fail(error)
        return guarded

    def _fail(self, error):
        """Remember the first internal error and stop detailed recording (losses go on)."""
        if self._error is None:
            self._error = f"{type(error).__name__}: {error}"
        self._forward = self._buffer = None

    def _disarm(self):
        for handle in self._handles:
            handle.remove()
        if self._handles:
            self.adapter.restore_tensor_hook_tables(self._params, self._hook_tables)
        self._handles.clear()
        self._armed = False

    def _make_grad_hook(self, index):
        delivered = self._delivered

        def on_grad(grad):
            # the sum of what backward delivered since the last optimizer step
            previous = delivered[index]
            delivered[index] = grad if previous is None else previous + grad
        return on_grad

    def _on_root_input(self, module, inputs):
        if self._forward is not None:     # a training forward was already measured this step
            return
        self._buffer = buffer = _Forward()
        leaves = self.adapter.float_leaves(inputs)
        if leaves:
            buffer.inputs = self._input_stats(self.adapter.detach(leaves[0]))

    def _make_layer_hook(self, name, kind):
        def on_output(module, inputs, output):
            buffer = self._buffer
            if buffer is None or self._forward is not None:
                return
            calls = buffer.counts.get(name, 0) + 1
            buffer.counts[name] = calls
            if calls > MAX_CALLS_PER_LAYER:
                return
            leaves = self.adapter.float_leaves(output)
            if leaves:
                key = name if calls == 1 else f"{name}#{calls}"
                buffer.layers.append((key, self._layer_stats(self.adapter.detach(leaves[0]), kind)))
        return on_output

    def _on_root_output(self, module, inputs, output):
        buffer = self._buffer
        if buffer is None or self._forward is not None:
            return
        leaves = self.adapter.float_leaves(output)
        if not any(getattr(t, "requires_grad", False) for t in leaves):
            self._buffer = _Forward()   # an evaluation pass (no graph): not what is trained
            return
        out = self.adapter.detach(leaves[0])
        if out.ndim == 2 and 2 <= out.shape[1] <= OUTPUT_MAX_COLUMNS:
            buffer.output = out[:OUTPUT_ROWS]
        buffer.eval_layers = [n for n, m in self._mode_layers if not self.adapter.is_training(m)]
        self._forward, self._buffer = buffer, None

    # --- statistics, reduced where the tensor lives --------------------------------------
    def _input_stats(self, x):
        """Light statistics of the input batch; NaN/Inf show up as a non-finite mean."""
        xp = self._xp
        x = xp.asfloat(x)
        stats = [("mean", xp.mean(x)), ("std", xp.std(x))]
        if self._heavy and x.ndim >= 2 and x.shape[0] > 1:
            flat = xp.reshape(x, (x.shape[0], -1))
            stats.append(("constant_features", xp.mean(xp.asfloat(xp.std(flat, axis=0) <= 0))))
        if x.ndim >= 1:
            stats.append(("batch", float(x.shape[0])))
        return stats

    def _layer_stats(self, x, kind):
        xp = self._xp
        x = xp.asfloat(x)
        stats = [("mean", xp.mean(x)), ("std", xp.std(x))]
        batched = x.ndim >= 2 and x.shape[0] > 1
        if kind == "relu" and batched:
            # a unit (feature, or channel of a feature map) dead for every sample of the batch
            # (the largest output of each unit over the batch; <= 0 means dead, decided on
            # the host so that the rules can follow individual units across steps)
            per_unit = xp.reshape(x, (x.shape[0], x.shape[1], -1))
            stats.append(("unit_max", xp.amax(per_unit, axis=(0, 2))))
        elif kind == "tanh":
            stats.append(("saturated", xp.mean(xp.asfloat(xp.abs(x) > rules.TANH_SATURATION))))
        elif kind == "sigmoid":
            stats.append(("saturated", xp.mean(xp.asfloat(
                xp.abs(x - 0.5) > rules.SIGMOID_SATURATION - 0.5))))
        if self._heavy:
            stats.append(("absmax", xp.amax(xp.abs(x))))
            if batched:
                flat = xp.reshape(x, (x.shape[0], -1))
                stats.append(("batch_spread", xp.mean(xp.std(flat, axis=0))))
                if flat.shape[1] > 1:
                    stats.append(("unit_spread", xp.mean(xp.std(flat, axis=1))))
            stats.append(("histogram", xp.reshape(x, (-1,))[:HISTOGRAM_SAMPLE]))
        return stats

    # --- one recorded step -------------------------------------------------------------------
    def _record(self, step):
        adapter, xp = self.adapter, self._xp
        delivered = self._delivered
        params = self._params
        scalars, scalar_keys, vectors, vector_keys = [], [], [], []
        known = {}      # statistics already on the host (shapes), no transfer needed

        def add(key, value):
            if value is None:
                return
            if isinstance(value, float):
                known[key] = np.array([value])
            elif value.ndim == 0:
                scalars.append(value)
                scalar_keys.append(key)
            else:
                vectors.append(value)
                vector_keys.append((key, math.prod(value.shape)))

        # every per-parameter norm of this step in ONE batched call: what backward delivered,
        # what .grad holds, their difference, the weights, and the update of this step
        got = [i for i, d in enumerate(delivered) if d is not None]
        comparable = []
        for i in got:
            held = getattr(params[i], "grad", None)
            if held is not None and tuple(held.shape) == tuple(delivered[i].shape):
                comparable.append((i, held))
        held_list = [h for _, h in comparable]
        # .grad - delivered and weights - weights before the step: one batched subtraction
        differences = adapter.differences(held_list + params,
                                          [delivered[i] for i, _ in comparable] + self._snapshot) \
            if held_list or params else []
        groups = [("grad_norm", [delivered[i] for i in got]), ("held_norm", held_list),
                  ("held_excess", differences[:len(held_list)]), ("param_norm", params),
                  ("update_norm", differences[len(held_list):])]
        tensors = [t for _, group in groups for t in group]
        if tensors:
            vectors.append(adapter.norms(tensors))
            vector_keys.extend((key, len(group)) for key, group in groups if group)
        forward = self._forward or self._buffer or _Forward()
        for stat, value in forward.inputs:
            add(("input", stat), value)
        for layer, stats in forward.layers:
            for stat, value in stats:
                add(("layer", layer, stat), value)
        if forward.output is not None:
            add("output", forward.output)
        for _, v in self._pending:
            if not isinstance(v, float):
                scalars.append(xp.reshape(v, ()))
                scalar_keys.append("loss")
        for _, v in self._pending_val:
            if not isinstance(v, float):
                scalars.append(xp.reshape(v, ()))
                scalar_keys.append("val")

        # the one device-to-host copy of this step: all scalars stacked, vectors appended
        parts = ([xp.stack(scalars)] if scalars else []) + vectors
        host = self._to_host_many(parts) if parts else np.zeros(0)
        values = dict(known)
        loss_host, val_host = [], []
        for key, value in zip(scalar_keys, host[:len(scalars)]):
            if key == "loss":
                loss_host.append(float(value))
            elif key == "val":
                val_host.append(float(value))
            else:
                values[key] = np.array([value])
        offset = len(scalars)
        for key, size in vector_keys:
            values[key] = host[offset:offset + size]
            offset += size
        self._take_losses(True, loss_host)
        self._take_losses(False, val_host)

        n = len(params)
        record = StepRecord(step=step, backward=bool(got))
        record.grad_norm = np.full(n, np.nan)
        record.grad_received = np.zeros(n, dtype=bool)
        if got:
            record.grad_norm[got] = values["grad_norm"]
            record.grad_received[got] = True
        record.held_norm = np.full(n, np.nan)
        record.held_excess = np.full(n, np.nan)
        if comparable:
            index = [i for i, _ in comparable]
            record.held_norm[index] = values["held_norm"]
            record.held_excess[index] = values["held_excess"]
        record.param_norm = values.get("param_norm", np.zeros(0)).astype(float)
        record.update_norm = values.get("update_norm", np.zeros(0)).astype(float)
        record.inputs = {key[1]: float(v[0]) for key, v in values.items()
                         if isinstance(key, tuple) and key[0] == "input"}
        histograms = {}
        for key, v in values.items():
            if isinstance(key, tuple) and key[0] == "layer":
                _, layer, stat = key
                if stat == "histogram":
                    finite = v[np.isfinite(v)]
                    if finite.size:
                        histograms[layer] = np.histogram(finite, bins=HISTOGRAM_BINS)
                elif stat == "unit_max":
                    stats = record.activations.setdefault(layer, {})
                    if np.all(np.isfinite(v)):      # NaN units are neither dead nor alive
                        dead = np.asarray(v) <= 0
                        record.dead_units[layer] = dead
                        stats["dead"] = float(dead.mean())
                    else:
                        stats["dead"] = float("nan")
                else:
                    record.activations.setdefault(layer, {})[stat] = float(v[0])
        if "output" in values:
            record.output = values["output"].reshape(forward.output.shape).astype(float)
        record.eval_layers = list(forward.eval_layers)
        record.lrs = self._learning_rates()
        self.run.records.append(record)
        if histograms:
            self.run.histograms.append((step, histograms))
        self._forward = self._buffer = None
        self._delivered = []
        self._snapshot = None
        if not rules.record_finite(record):
            self._escalate = True     # record the next steps: find where the NaN comes from
        if self._writer is not None:
            self._writer.record(self.run, record, histograms)

    def _learning_rates(self):
        if self.optimizer is None:
            return []
        try:
            return [float(lr) for lr in self.adapter.optimizer_learning_rates(self.optimizer)]
        except (KeyError, TypeError, ValueError):
            return []

    # --- which steps are recorded ----------------------------------------------------------
    def _plain_estimate(self):
        """Median duration of the last unrecorded steps (pure Python: this runs every step)."""
        recent = self._plain_intervals[-16:]
        if not recent:
            return None
        return sorted(recent)[len(recent) // 2]

    def _next_is_recorded(self, entered, was_armed):
        """Decide whether the coming step is recorded (and account for the one just done)."""
        interval = None if self._last_exit is None else entered - self._last_exit
        if interval is not None:
            if was_armed:
                self._uncharged.append(interval)
            else:
                self._plain_intervals.append(interval)
                if len(self._plain_intervals) > 64:
                    del self._plain_intervals[:-16]
        plain = self._plain_estimate()
        if plain is not None:
            self._credit += (self.overhead or 0.0) * plain
            for armed_interval in self._uncharged:
                self._credit -= max(0.0, armed_interval - plain)
            self._uncharged.clear()
        self._since_record = 0 if was_armed else self._since_record + 1
        if self._escalate and self._escalated_left > 0:
            self._escalated_left -= 1
            return True
        self._escalate = False
        if self._error is not None:
            return False
        steps_since = self._since_record + 1
        if self.overhead is None:
            return self._step % self.every == 0
        if steps_since < self.every:
            return False
        upcoming = self._step
        if upcoming < WARMUP_RECORDS or upcoming & (upcoming - 1) == 0:
            # steps 0, 1, 2, 4, 8, 16, ...: the early phase on a log time scale, where many
            # bugs show, whatever the budget (they are charged to it: later records wait)
            return True
        if plain is None:
            return False        # step 3 runs without hooks: what a step costs unwatched
        return self._credit >= 0

    def _charge(self, seconds):
        """Time spent inside step() itself is the monitor's."""
        if self.overhead is not None:
            self._credit -= seconds
