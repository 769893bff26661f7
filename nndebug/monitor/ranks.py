"""The ranks of a distributed run compare notes: one small exchange on agreed steps.

Every rank calls ``mon.step()`` once per optimizer step, so every rank knows the step
number: the exchange steps are a function of it (``is_exchange_step``: steps 0, 1, 2, 4,
8, ... and then every ``EXCHANGE_EVERY`` steps), and all ranks meet at the same ones
without asking each other. On such a step each rank sends one row of numbers
(``nndebug.rank_records``): its batch fingerprint, a checksum of every parameter (after
the optimizer step) and of every batch-norm buffer (read just before the step's forward,
after DDP broadcast rank 0's buffers), and the severity of each finding code its own rules
reached (re-judged at steps 512, 1024, 2048, ...). The size of the row depends
on the model's layers, never on its number of weights.

``findings()``, ``report()`` and ``close()`` never talk to another rank: they read what the
last exchange brought. Each finding's ``evidence["ranks"]`` names the ranks that found it;
a code found on another rank only is added, pointing to that rank's report.
"""
import numpy as np

from ..findings import Finding
from ..rank_records import SEVERITY_LEVELS, RankRecord, continued
from ..records import BATCHNORM_TYPES
from .schedule import is_judged_step
from .sinks import Sink

EXCHANGE_EVERY = 50           # [design] after the warm-up steps, one exchange every 50 steps
REJUDGE_FROM = 512            # [design] each rank runs its own rules for the exchange at steps
                              # 512, 1024, 2048, ...: a verdict costs tens of milliseconds, a
                              # small share of the run only that late
BUFFER_NAMES = ("running_mean", "running_var")
LEVELS = {"info": 1, "warning": 2, "error": 3}


def is_exchange_step(step):
    return is_judged_step(step) or step % EXCHANGE_EVERY == 0


def connect(adapter, batches, group=None):
    """A ``RankSync`` when this is a multi-rank torch.distributed run, else None. Never
    hangs: when the other ranks do not watch too, the rank is watched on its own."""
    if adapter.framework != "torch":
        return None
    from ..adapters import torch_distributed
    group = torch_distributed.active_group(group)
    if group is None:
        return None
    from .. import rules
    try:
        exchange = torch_distributed.RankExchange(group)
        error = None
    except torch_distributed.ExchangeError as failure:
        exchange, error = None, str(failure)
    sync = RankSync(exchange, adapter, adapter.model, batches, sorted(rules.CAUSE_ORDER),
                    torch_distributed.checksums, group_rank=torch_distributed.rank_of(group))
    sync.record.error = error
    return sync


class RankSync(Sink):
    """Exchanges a row per agreed step with the other ranks; keeps ``run.ranks`` up to date."""

    def __init__(self, exchange, adapter, model, batches, code_names, checksums, group_rank):
        self.exchange, self.adapter, self.model = exchange, adapter, model
        self.checksums = checksums
        self.code_names = list(code_names)
        rank, world = group_rank
        self.record = RankRecord(rank=rank, world_size=world,
                                 backend=exchange.backend if exchange is not None else "")
        named = list(adapter.named_parameters())
        self.param_names = [name for name, _ in named]
        self.params = [p for _, p in named]
        self.buffer_names, self.buffers = [], []
        for name, module in adapter.named_modules():
            if adapter.module_type(module) in BATCHNORM_TYPES:
                for buffer in BUFFER_NAMES:
                    value = getattr(module, buffer, None)
                    if value is not None:
                        self.buffer_names.append(f"{name}.{buffer}" if name else buffer)
                        self.buffers.append(value)
        self._fingerprint = None
        self._buffer_sums = None
        self._levels = np.zeros(len(self.code_names))
        self._pre_hook = None
        batches.listeners.append(self._take_fingerprint)
        self._watch_next_forward()          # step 0 is an exchange step

    # --- what each rank contributes -----------------------------------------------------
    def _take_fingerprint(self, value):
        self._fingerprint = value

    def _watch_next_forward(self):
        if self.buffers and self._pre_hook is None:
            self._pre_hook = self.adapter.add_forward_pre_hook(self.model, self._read_buffers)

    def _read_buffers(self, module, inputs):
        if self._buffer_sums is None and self.adapter.is_training(module):
            self._buffer_sums = self.checksums(self.buffers)
            self._drop_pre_hook()

    def _drop_pre_hook(self):
        if self._pre_hook is not None:
            self._pre_hook.remove()
            self._pre_hook = None

    def _row(self, run, step):
        fingerprint = float("nan") if self._fingerprint is None else float(self._fingerprint)
        buffers = self._buffer_sums if self._buffer_sums is not None else \
            np.full(len(self.buffers), np.nan)
        if step >= REJUDGE_FROM and step & (step - 1) == 0:
            self._levels = self._local_levels(run)
        return np.concatenate([[fingerprint], self.checksums(list(self.params)), buffers,
                               self._levels])

    def _local_levels(self, run):
        from .. import rules
        found = {}
        for f in rules.diagnose(run.judged_view()):      # the judged steps: no clock
            found[f.code] = max(found.get(f.code, 0), LEVELS[f.severity])
        return np.array([found.get(code, 0) for code in self.code_names], dtype=float)

    def continue_from(self, saved):
        """A run restarted from a checkpoint (before its first step): the exchanges saved
        before the restart (a ``RankRecord``) count with those to come
        (``rank_records.continued``)."""
        self.record = continued(saved, self.record)

    # --- the sink's events --------------------------------------------------------------------
    def on_step(self, run, step):
        run.ranks = self.record
        if self.exchange is not None and is_exchange_step(step):
            try:
                rows = self.exchange.all_gather(self._row(run, step))
                self.record.add_exchange(step, rows, self.param_names, self.buffer_names,
                                         self.code_names)
            except Exception as error:    # a rank gone or late: stop, never hang or break
                self.record.error = str(error)
                self.exchange = None
                self._drop_pre_hook()
        self._fingerprint, self._buffer_sums = None, None
        if self.exchange is not None and is_exchange_step(step + 1):
            self._watch_next_forward()

    def annotate(self, run, findings):
        record = self.record
        local = {f.code for f in findings}
        for f in findings:
            if "ranks" not in f.evidence:
                ranks = set(record.remote.get(f.code, {})) | {record.rank}
                f.evidence = {**f.evidence, "ranks": sorted(ranks)}
        for code, by_rank in record.remote.items():
            others = sorted(r for r in by_rank if r != record.rank)
            if code in local or not others:
                continue
            level = max(by_rank[r] for r in others)
            findings.append(Finding(
                code=code, severity=SEVERITY_LEVELS[level],
                message=f"{code} was found on rank(s) {', '.join(map(str, others))}, not on this "
                        f"rank (rank {record.rank}).",
                evidence={"ranks": others},
                fix=f"Read rank {others[0]}'s report (mon.report() on that rank) for the evidence "
                    "and the fix."))
        if record.error:
            findings.append(Finding(
                code="MONITOR_ERROR", severity="info",
                message="The ranks stopped comparing notes, so the findings after that are this "
                        f"rank's own ({record.error}).",
                evidence={"ranks": [record.rank], "error": record.error},
                fix="Call mon.step() on every rank for every optimizer step, and call "
                    "nndebug.watch on every rank."))
        return findings

    def close(self, run):
        self._drop_pre_hook()
