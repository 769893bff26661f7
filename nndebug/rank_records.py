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
