"""The order of the batches: the same sequence of batches, epoch after epoch.

The monitor keeps a fingerprint of the batches of the early run (a checksum of the batch,
or of a few of its values: equal batches give equal numbers, the order of samples inside a
batch included), of the first 32 steps and of every 32nd step after them: pairs of those
steps lie at every distance, so an epoch of any length is seen to repeat. A sequence that
repeats with a period of more than one batch is a data loader that never reshuffles: ``shuffle=False``, or, under DistributedDataParallel,
a ``DistributedSampler`` whose ``set_epoch(epoch)`` is never called (it then reshuffles
with the same seed every epoch). SGD's noise is then the same every epoch, and with data
sorted by class the model chases one class after the other.

Full-batch training (every fingerprint equal: period one) is not a repeat of order: one
batch on every step is only noted (info), since a loader that returns the same batch every
time looks the same. Augmentation (random crops, noise) makes every batch new: not reported.
"""
import numpy as np

from ..findings import Finding
from ..records import is_fingerprinted_step
from .graph import rule

MIN_EPOCHS_SEEN = 2           # [design] the whole first epoch must have been seen again
MIN_DISTINCT_BATCHES = 2      # [design] a period of identical batches is full-batch training
MIN_SAME_BATCH_STEPS = 8      # [design] this many steps on one identical batch: full-batch
                              # training, or a loader that returns the same batch every time
MAX_PERIODS_TRIED = 64        # [design] distances between equal batches tried as the period,
                              # shortest first (a repeating order's true period is among the
                              # first: the distances between equal batches are its multiples)


def fingerprinted(fingerprints):
    """``(steps, values)``: the steps whose batch has a fingerprint, and the fingerprints.

    Only the monitor's sparse ruler of steps is read (``records.is_fingerprinted_step``),
    even where every step has one (under DistributedDataParallel the ranks fingerprint
    every step): the same evidence on one process and on many, and a few hundred steps at
    most to compare pairwise."""
    f = np.asarray(fingerprints, dtype=float)
    steps = np.arange(len(f))
    steps = steps[is_fingerprinted_step(steps) & np.isfinite(f)]
    return steps, f[steps]


def repeat_period(fingerprints):
    """The smallest period L >= 2 with which the sequence repeats exactly, the whole first
    period seen again at least once; None when there is none.

    ``fingerprints``: one per step, NaN where a step has none. Two fingerprinted steps a
    multiple of L apart must hold the same batch, every time; the first L steps must hold
    two batches or more, none of them twice (a run of one repeated batch is full-batch
    training; an epoch visits each batch once, so a "period" holding a batch twice is a
    few batches recurring by chance, as the two orders of a two-sample set do). The
    periods tried are the distances between equal batches, shortest first."""
    n = len(fingerprints)
    steps, values = fingerprinted(fingerprints)
    if steps.size < 2 * MIN_DISTINCT_BATCHES or np.all(values == values[0]):
        return None
    if len(set(values.tolist())) == values.size:
        return None         # no batch seen twice: no period (spares the pairwise matrices)
    same = values[:, None] == values[None, :]
    apart = steps[None, :] - steps[:, None]          # apart[i, j]: steps[j] - steps[i]
    later = apart > 0
    periods = np.unique(apart[same & later])
    periods = periods[(periods >= 2) & (MIN_EPOCHS_SEEN * periods <= n)][:MAX_PERIODS_TRIED]
    for period in periods:
        if not np.all(same[later & (apart % period == 0)]):
            continue                                 # a batch not seen again a period later
        first = values[steps < period]
        if np.unique(first).size == first.size >= MIN_DISTINCT_BATCHES:
            return int(period)      # an epoch visits each of its batches once
    return None


def same_batch_throughout(fingerprints):
    """Whether every fingerprinted step (at least MIN_SAME_BATCH_STEPS) saw one batch."""
    _, values = fingerprinted(fingerprints)
    on_ruler = int(is_fingerprinted_step(np.arange(len(fingerprints))).sum())
    return values.size >= MIN_SAME_BATCH_STEPS and values.size == on_ruler and \
        bool(np.all(values == values[0]))


def _same_batch_finding(fingerprints):
    """Info: one batch on every step. Full-batch training looks exactly like this, so it is
    no warning; the message says what to check when the data set is larger than the batch
    (public report: a Dataset whose __getitem__ ignored its index and re-seeded its
    generator, https://github.com/Atcold/NYU-DLSP20/issues/851)."""
    seen = int(fingerprinted(fingerprints)[0].size)
    return Finding(
        code="DATA_ORDER_REPEATS", severity="info", step=0,
        message=f"Every one of the {seen} fingerprinted steps "
                f"(of the first {len(fingerprints)}) trained on the very "
                "same batch (same samples, same order). That is full-batch training when the "
                "batch is the whole training set; when the data set is larger, the loader "
                "returns the same batch every time and the model learns that batch only.",
        evidence={"batches_per_epoch": 1, "batches_fingerprinted": seen},
        fix="Unless this is full-batch training on purpose: make Dataset.__getitem__ use its "
            "index, create random generators once (not inside __getitem__ with a fixed "
            "seed), and check that the loader walks the whole data set.")


@rule(produces="DATA_ORDER_REPEATS")
def data_order_repeats(ctx):
    fingerprints = getattr(ctx.run, "fingerprints", None)
    if fingerprints is None or len(fingerprints) == 0:
        return None
    period = repeat_period(fingerprints)
    if period is None:
        return _same_batch_finding(fingerprints) if same_batch_throughout(fingerprints) \
            else None
    world = getattr(getattr(ctx.run, "ranks", None), "world_size", 1) or 1
    distributed = world > 1
    epochs = len(fingerprints) / period
    if distributed:
        message = (f"Every epoch visits the same {period} batches in the same order on this rank "
                   f"(seen {epochs:.1f} times over): the DistributedSampler reshuffles with the "
                   "same seed each epoch because set_epoch(epoch) is never called.")
        fix = ("Call train_sampler.set_epoch(epoch) at the start of every epoch, before "
               "iterating the DataLoader.")
    else:
        message = (f"The batches repeat in exactly the same order every epoch ({period} batches "
                   f"per epoch, seen {epochs:.1f} times over): the data loader does not "
                   "reshuffle.")
        fix = ("Use DataLoader(..., shuffle=True) for training (keep shuffle=False for "
               "evaluation); with sorted data this also stops the model from chasing one "
               "class after another.")
    return Finding(
        code="DATA_ORDER_REPEATS", severity="warning" if distributed else "info",
        step=period, message=message,
        evidence={"batches_per_epoch": period,
                  "batches_fingerprinted": int(fingerprinted(fingerprints)[0].size),
                  "ranks": [getattr(ctx.run.ranks, "rank", 0)] if distributed else [0]},
        fix=fix)
