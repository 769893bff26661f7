"""Plain records of what the ranks of a distributed run told each other (NumPy only).

On each recorded step every rank contributes one fixed-size row: its batch fingerprint,
a checksum of each parameter and batch-norm buffer, and the severity of each finding code
its own rules reached. ``RankRecord`` keeps summaries of those exchanges, never the rows
of every step, so its size depends on the model's layers and the number of ranks, not on
the length of the run.
"""
from dataclasses import dataclass, field

import numpy as np

SEVERITY_LEVELS = {1: "info", 2: "warning", 3: "error"}   # 0: the code was not found
CHECKSUM_RTOL = 1e-6          # [design] identical tensors give identical sums on the same kind of
                              # machine; 1e-6 leaves room for another summation order on another
                              # node (float32 rounding), while replicas that drift apart by one
                              # optimizer step differ by 1e-4 or more


@dataclass
class Divergence:
    """The first exchange where some rank's value differed from rank 0's."""
    step: int
    name: str                 # the parameter or buffer
    ranks: list               # the ranks that differ from rank 0
    values: list              # the checksum on each rank


@dataclass
class RankRecord:
    rank: int
    world_size: int
    backend: str = ""
    exchanges: int = 0                  # exchanges completed
    batches_compared: int = 0           # exchanges where every rank had a batch fingerprint
    same_batches: int = 0               # ... and every rank's fingerprint was equal
    first_same_batch_step: "int | None" = None
    params: "Divergence | None" = None  # first divergence of parameter checksums
    buffers: "Divergence | None" = None  # first divergence of batch-norm buffers
    remote: dict = field(default_factory=dict)   # code -> {rank: severity level} (all ranks)
    error: "str | None" = None          # why exchanges stopped (timeout, a rank left), or None

    def add_exchange(self, step, rows, param_names, buffer_names, code_names):
        """Fold one exchange in. ``rows``: (world, 1 + P + B + C) float64 array: fingerprint
        (NaN when the rank saw no batch), parameter checksums, buffer checksums, severity
        level of each code."""
        rows = np.asarray(rows, dtype=float)
        self.exchanges += 1
        p, b = len(param_names), len(buffer_names)
        fingerprints = rows[:, 0]
        if np.isfinite(fingerprints).all():
            self.batches_compared += 1
            if np.all(fingerprints == fingerprints[0]):
                self.same_batches += 1
                if self.first_same_batch_step is None:
                    self.first_same_batch_step = step
        if self.params is None:
            self.params = _first_divergence(step, rows[:, 1:1 + p], param_names)
        if self.buffers is None:
            self.buffers = _first_divergence(step, rows[:, 1 + p:1 + p + b], buffer_names)
        levels = rows[:, 1 + p + b:]
        for j, code in enumerate(code_names):
            for rank in range(rows.shape[0]):
                level = int(levels[rank, j]) if np.isfinite(levels[rank, j]) else 0
                if level:
                    seen = self.remote.setdefault(code, {})
                    seen[rank] = max(seen.get(rank, 0), level)


def _first_divergence(step, sums, names):
    if sums.shape[1] == 0:
        return None
    reference = sums[0]
    scale = np.maximum(np.abs(reference), 1e-30)
    differs = np.abs(sums - reference) > CHECKSUM_RTOL * scale
    differs |= np.isfinite(sums) != np.isfinite(reference)
    columns = np.nonzero(differs.any(axis=0))[0]
    if not len(columns):
        return None
    j = int(columns[0])
    ranks = [int(r) for r in np.nonzero(differs[:, j])[0]]
    return Divergence(step, names[j], ranks, [float(v) for v in sums[:, j]])


# --- saved with the run, and continued after a restart (runfile.py, long_run.py) ------------------
def to_plain(record):
    """``record`` as JSON values (the ranks in ``remote`` become strings, as JSON keys must)."""
    plain = {k: v for k, v in record.__dict__.items() if k not in ("params", "buffers", "remote")}
    for which in ("params", "buffers"):
        d = getattr(record, which)
        plain[which] = None if d is None else {"step": int(d.step), "name": d.name,
                                               "ranks": [int(r) for r in d.ranks],
                                               "values": [float(v) for v in d.values]}
    plain["remote"] = {code: {str(rank): int(level) for rank, level in by_rank.items()}
                       for code, by_rank in record.remote.items()}
    return plain


def from_plain(plain):
    """The ``RankRecord`` that ``to_plain`` wrote."""
    plain = dict(plain)
    for which in ("params", "buffers"):
        d = plain.get(which)
        plain[which] = None if d is None else Divergence(int(d["step"]), str(d["name"]),
                                                         list(d["ranks"]), list(d["values"]))
    plain["remote"] = {code: {int(rank): int(level) for rank, level in by_rank.items()}
                       for code, by_rank in (plain.get("remote") or {}).items()}
    return RankRecord(**plain)


def continued(saved, current):
    """One record for a run restarted from a checkpoint: ``current`` (the exchanges since the
    restart) folded onto ``saved`` (those before it). Counts add up, the first divergence and
    the first same batch are the earliest, every rank's codes are kept at their highest level,
    and an exchange error before the restart is kept unless a new one replaced it."""
    merged = from_plain(to_plain(saved))
    merged.rank, merged.world_size = current.rank, current.world_size
    merged.backend = current.backend or saved.backend
    merged.exchanges += current.exchanges
    merged.batches_compared += current.batches_compared
    merged.same_batches += current.same_batches
    if merged.first_same_batch_step is None:
        merged.first_same_batch_step = current.first_same_batch_step
    merged.params = merged.params or current.params
    merged.buffers = merged.buffers or current.buffers
    for code, by_rank in current.remote.items():
        seen = merged.remote.setdefault(code, {})
        for rank, level in by_rank.items():
            seen[rank] = max(seen.get(rank, 0), level)
    merged.error = current.error or saved.error
    return merged
