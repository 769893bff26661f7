"""BATCHES_DUPLICATED_ACROSS_WORKERS: the loader's worker processes serve the same "random"
batches, because each worker starts from a copy of the same random state.

A DataLoader with ``num_workers=N`` forks N processes, and each gets a copy of the Dataset,
generator and all. A Dataset that draws its items or augmentations from a generator it
created in ``__init__`` (``self.rng = np.random.default_rng(seed)``, a transform's own
``RandomState``) then makes the same draws in every worker: batch 0 and batch 1 come from
different workers but are the same batch, and so on in runs of N. The workers are started
afresh every epoch (unless ``persistent_workers=True``), so every epoch also repeats the
first one, draw for draw. Public reports: "np.random generates the same random numbers for
each data batch", https://github.com/wolny/pytorch-3dunet/issues/32 (the maintainer:
"workers share the common instance of the Dataset which was initialized with a fixed
seed") and https://github.com/pytorch/pytorch/issues/5059.

What gives it away, from the batch fingerprints the monitor already keeps for the first
``FINGERPRINT_DENSE_STEPS`` steps (``monitor/batches.py``: equal batches, equal numbers):

- a batch equal to the one just before it, again and again (a loader walking its data
  never serves one batch twice in a row), and
- from the step an old batch first comes back, the whole sequence replays from the start
  (the fresh workers of the next epoch draw the same numbers again).

Each alone has a healthy look-alike: stepping twice on every batch on purpose (data
echoing) repeats neighbours but never replays; a loader that does not reshuffle replays
but never serves one batch twice in a row (that is DATA_ORDER_REPEATS); a training set of
two or three samples read whole with ``shuffle=True`` repeats neighbours by chance, in no
fixed order, so it does not replay. One batch on every step (full-batch training) is none
of them. What is missed: an epoch longer than half of the dense window (the replay is not
seen), and a Dataset that uses its index and draws only its augmentation from the copied
generator (each worker serves other samples: the batches differ).

An iterable-style dataset (real-bug batch 95) duplicates differently: each of the N workers
gets a replica and, unless ``__iter__`` splits the data by ``get_worker_info()``, streams the
whole epoch (espnet/espnet#2081: "the data loader generates duplicated keys if
num_workers>=1"). With an order drawn per epoch (``set_epoch``) nothing replays, but the
batches come in runs of exactly N equal ones. So when a DataLoader over an IterableDataset
with N >= 2 workers is in the training code's scope (``run.observed.scoped_loaders``,
``monitor/scoped_loaders.py``), runs of N equal batches over at least ``MIN_RUN_SHARE`` of
the dense steps are enough. Its look-alike: data echoing by exactly N with such a loader.
"""
import numpy as np

from ..findings import Finding
from ..records import FINGERPRINT_DENSE_STEPS
from .context import observed_list
from .graph import rule

MIN_STEPS_SEEN = 8           # [design] consecutive fingerprinted steps before a verdict
MIN_REPEATED_NEIGHBOURS = 3  # [design] steps whose batch equals the step before's: two
                             # workers repeat every second batch (16 times in 32 steps);
                             # three rules out a coincidence of a few equal batches
MIN_REPLAYED_STEPS = 8       # [design] steps that replay the start, step for step: a
                             # shuffled two-sample set replays 8 steps by chance once in
                             # 2**8 tries
MIN_RUN_SHARE = 0.75         # [design] share of the dense steps in runs of exactly N equal
                             # batches (an iterable dataset copied to N workers: 100% in the
                             # espnet case; a loader's last, shorter batches break a few runs)


def consecutive_fingerprints(fingerprints):
    """The fingerprints of the first steps, up to the first step without one (the dense
    part of the monitor's ruler: every step there is fingerprinted)."""
    f = np.asarray(list(fingerprints)[:FINGERPRINT_DENSE_STEPS], dtype=float)
    missing = np.flatnonzero(~np.isfinite(f))
    return f[:missing[0]] if missing.size else f


def run_lengths(values):
    """The lengths of the runs of equal neighbours, in order."""
    lengths, count = [], 1
    for before, now in zip(values[:-1], values[1:]):
        if now == before:
            count += 1
        else:
            lengths.append(count)
            count = 1
    lengths.append(count)
    return lengths


def replay_period(values):
    """The epoch length P when the batches replay from the start: the first batch comes
    back at step P (after different ones), every later step repeats the step P before it,
    and at least MIN_REPLAYED_STEPS steps were replayed; else None."""
    differs = np.flatnonzero(values != values[0])
    if differs.size == 0:
        return None
    for period in np.flatnonzero(values == values[0]).tolist():
        if period <= differs[0]:
            continue                         # still the first run of equal batches
        replayed = values.size - period
        if replayed >= MIN_REPLAYED_STEPS and np.all(values[period:] == values[:replayed]):
            return int(period)
    return None


def duplicated_by_workers(fingerprints):
    """``(repeated steps, typical run length, epoch length)`` when the batches come in runs
    of equal ones AND the sequence replays from the start; else None."""
    values = consecutive_fingerprints(fingerprints)
    if values.size < MIN_STEPS_SEEN or np.all(values == values[0]):
        return None
    repeated = int(np.sum(values[1:] == values[:-1]))
    if repeated < MIN_REPEATED_NEIGHBOURS:
        return None
    period = replay_period(values)
    if period is None:
        return None
    lengths = run_lengths(values)
    typical = int(np.median([n for n in lengths if n > 1]))
    return repeated, typical, period, int(values.size)


def iterable_workers(ctx):
    """The most workers of a DataLoader over an iterable-style dataset in the training
    code's scope (0: none)."""
    rows = [row for row in observed_list(ctx, "scoped_loaders") if len(row) == 6 and row[3]]
    return max((int(row[2]) for row in rows), default=0)


def duplicated_by_iterable_workers(fingerprints, workers):
    """``(repeated steps, run length, steps seen)`` when the dense steps come in runs of
    exactly ``workers`` equal batches (most of them); else None."""
    if workers < 2:
        return None
    values = consecutive_fingerprints(fingerprints)
    if values.size < MIN_STEPS_SEEN or np.all(values == values[0]):
        return None
    repeated = int(np.sum(values[1:] == values[:-1]))
    lengths = run_lengths(values)
    in_runs = sum(n for n in lengths[:-1] if n == workers) + \
        (lengths[-1] if lengths[-1] <= workers else 0)     # the last run may be cut short
    if repeated < MIN_REPEATED_NEIGHBOURS or in_runs < MIN_RUN_SHARE * values.size:
        return None
    return repeated, workers, int(values.size)


def iterable_finding(repeated, workers, seen):
    return Finding(
        code="BATCHES_DUPLICATED_ACROSS_WORKERS", severity="warning", where="DataLoader",
        step=1,
        message=f"Of the first {seen} steps, {repeated} trained on exactly the batch of the "
                f"step before: the batches come in runs of {workers} identical ones, and a "
                f"DataLoader over an IterableDataset with {workers} workers is in scope. Each "
                "worker process gets a replica of an iterable dataset and, unless __iter__ "
                "splits the data between them, streams all of it: every batch reaches the "
                f"loop {workers} times, an epoch takes {workers}x the steps for the same data.",
        evidence={"steps_seen": seen, "repeated_neighbours": repeated, "run_length": workers,
                  "workers": workers, "threshold_run_share": MIN_RUN_SHARE},
        fix="Give each worker its share in __iter__: info = "
            "torch.utils.data.get_worker_info(); iterate items[info.id::info.num_workers] "
            "when info is not None (or split the files/shards the same way).")


@rule(produces="BATCHES_DUPLICATED_ACROSS_WORKERS", explains={"DATA_ORDER_REPEATS"})
def batches_duplicated_across_workers(ctx):
    fingerprints = getattr(ctx.run, "fingerprints", None)
    if not fingerprints:
        return None
    found = duplicated_by_workers(fingerprints)
    if found is None:
        iterable = duplicated_by_iterable_workers(fingerprints, iterable_workers(ctx))
        return None if iterable is None else iterable_finding(*iterable)
    repeated, typical, period, seen = found
    return Finding(
        code="BATCHES_DUPLICATED_ACROSS_WORKERS", severity="warning", where="DataLoader",
        step=period,
        message=f"Of the first {seen} steps, {repeated} trained on exactly the batch of the "
                f"step before (batches come in runs of {typical} identical ones), and every "
                f"{period} steps the sequence starts over: the data loader's workers serve "
                "the same 'random' draws. Each worker process starts from a copy of the "
                "Dataset's random generator, so the model sees a fraction of the samples "
                "(and augmentations) it should, the same ones every epoch.",
        evidence={"steps_seen": seen, "repeated_neighbours": repeated,
                  "run_length": typical, "replays_every": period},
        fix="Give each worker its own generator: DataLoader(..., worker_init_fn=f) with "
            "def f(worker_id): info = torch.utils.data.get_worker_info(); "
            "info.dataset.rng = np.random.default_rng(info.seed) (info.seed differs per "
            "worker and per epoch). Or draw from torch's generator, which torch reseeds in "
            "every worker.")
