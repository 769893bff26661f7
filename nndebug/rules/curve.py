"""What the loss curve says: diverging, oscillating, at chance, on a plateau, learning poorly.

These verdicts are computed from the curve itself (``Context.curve`` and its window
summary), not from findings, so that any rule can ask them in any order: the loss-curve
rules (``loss_curve.py``) report them, and the symptom rules use ``learning_poor`` to decide
whether a symptom is a warning or only "info". No rule is registered here.

Loss-curve verdicts never compare single steps. They compare window medians and measure
the run's own minibatch noise (the spread of step-to-step differences), so an ordinary
noisy minibatch loss is not "oscillating".
"""
import math

import numpy as np

from .context import (CLASS_INDEX_LOSSES, MIN_STEPS_FOR_TREND, curve_median, median,
                      observed_list)
from .moving_targets import targets_moved_up   # real-bug batch 191

NOISE_SIGMAS = 4.0            # [measured] a window difference must exceed 4 standard errors
                              # of the window median to count as a change (noise-aware)
PLATEAU_IMPROVEMENT = 0.05    # the end < 5% below the start: not improving [autotrainer]
                              # (their "slow convergence" compares relative loss change)
ENTROPY_ROUNDING = 1.0001     # [design] a soft target's entropy may pass its cross-entropy by
                              # float32 rounding only (Gibbs: H(t) <= CE(t, q) for distributions)
PLATEAU_CONFIDENCE = 2.0      # [design] ... even 2 standard errors of minibatch noise above the gain
CONVERGED_SHARE = 0.1         # [measured] a classifier below 10% of ln(C) has converged, not plateaued
POOR_IMPROVEMENT = 0.2        # less than 20% better than the start: learning is poor [measured]
CLASS_LOSS_NODES = {"NllLossBackward0", "NllLoss2DBackward0"}   # torch's graph node of
                              # cross-entropy and NLL (cross_entropy ends in nll_loss)
BEST_WINDOW_BIAS = 2.0        # [design] the lowest of up to 20 noisy window medians sits about
                              # two of their standard errors below the level it measures (the
                              # expected least of 20 normal draws is 1.87 below their mean)
DIVERGE_RISE = 0.5            # last window above best by half the ground gained ... [measured]
DIVERGE_REL = 0.25            # ... and by a quarter of the best value [measured]
CHANCE_TOLERANCE = 0.05       # within 5% of ln(C): "at chance" [karpathy] ("verify loss @ init
                              # is -log(1/C)"; staying there means nothing was learned)
CHANCE_MIN_GUESS_ENTROPY = 0.8  # [measured] a uniform guess: the softmax of the model's outputs
                              # keeps at least 80% of ln(C) of entropy per row. Classifiers stuck at
                              # chance (labels_shuffled_separately, image_files_listed_unsorted,
                              # weight_decay_passed_as_learning_rate) keep 0.998; a 2-D flow's
                              # samples that converged to a KL of ln(2) (flow_log_det_sign_flipped's
                              # fixed twin, seeds shifted by 1000) read as 0.51 to 0.68
OSCILLATION_WINDOW = 9        # [design] running median width (steps, odd) the swings are measured around
OSCILLATION_AMPLITUDE = 0.2   # [measured] spread around it above 20% of the starting loss;
                              # healthy digits runs reach ~8% at batch 16 (21 configurations)
OSCILLATION_REFERENCE_BATCH = 16  # [measured] ... allowed more below batch 16 (noise ~ 1/sqrt(batch))
SAMPLE_NOISE_MIN_CALLS = 2    # [design] loss calls whose per-sample errors were read, for the
                              # loss's own noise (real-bug batch 335)
SAMPLE_NOISE_SIGMAS = 1.5     # [design] the swing allowed in standard errors of the batch mean:
                              # the robust spread around a running median reads about one on
                              # pure noise (a Student-t regression, df 4, read 0.206 against
                              # 0.21 explained), so one alone leaves healthy runs at the edge
OSCILLATION_SIGMAS = 8.0      # [measured] a spike is 8 robust sigmas above the running median ...
OSCILLATION_REL = 0.25        # ... and above it by a quarter of the starting loss [measured]
OSCILLATION_MIN_SPIKES = 3    # [design] ... at least 3 of them, and ...
OSCILLATION_SPIKE_SHARE = 0.03  # ... at least 3% of steps (the [lesson] fired on any wiggle)
OSCILLATION_SPIKE_MIN_BATCH = 4  # [design] (real-bug batch 73) spikes counted from this batch size
CHUNK_MEAN_SPREAD = 2.5       # [measured] (real-bug batch 152) batches are chunks of the data
                              # when the input's batch mean moves between recorded steps by more
                              # than this many times what drawing rows at random allows (its
                              # std / sqrt(batch), an upper bound): 3.5 for one day per batch of
                              # 48 days whose features carry a day-level offset; at most 1 for
                              # shuffled rows (a mean of B draws)
CHUNK_MIN_RECORDS = 8         # [design] recorded steps needed to measure that spread
                                 # up: in a batch of 1-3 samples one hard sample is the batch's
                                 # loss, so the loss's own tail makes spikes (a batch-2
                                 # fine-tune: 14 in 300 steps at a healthy rate)
BLEW_UP_FACTOR = 1.5          # [design] the last window 1.5x the first (and beyond the noise):
                              # the loss blew up, for the learning-rate rule
LAST_LOSSES_BEFORE_NAN = 8    # [design] the finite losses just before a NaN that show whether
                              # it was growing: the loss-jump check's interval (loss_jumps.py)
CALM_UPDATE_RATIO = 0.1       # [karpathy] ~1e-3 per step is healthy; updates of a tenth of the
                              # weights are a rate's blow-up (learning_rate.LR_HIGH_RATIO)
WRITE_JUMP_UPDATES = 5.0      # [design] a write between optimizer steps that moves the sampled
                              # weights by 5 median optimizer updates or more: clipping and
                              # masks trim at most one update, an EMA (decay 0.99) copied every
                              # 25 steps jumps 15-40 (rewritten_weights.py reads it too)
RESTORE_MIN_WRITES = 3        # [design] (real-bug batch 117) writes from outside the optimizer
                              # that land exactly where the previous write put the weights: a
                              # saved state restored on purpose (a federated round's clients
                              # each start from the global weights; per-episode resets). Three
                              # such writes, and most of the large writes seen, on one period
RESTORE_SETTLE_SHARE = 0.2   # [measured] (real-bug batch 183) share of a restore period after
                             # each write whose losses are the restart's: a client's loss on
                             # the global weights fell 2.33, 2.13, 1.93, ... over its 10 local
                             # steps, the first two far above the running level
FRESH_DRAW_LEFT = 1.0         # [design] (real-bug batch 143) a write that leaves the weights
                              # farther from where the previous one put them than training had
                              # carried them: a new draw, not a way back (an EMA copy leaves
                              # 0.1-0.25 of the distance, Lookahead 0.5, a saved state 0; the
                              # active-learning rounds' reset_parameters() 1.4-2.7)
FRESH_DRAW_SIZE = 1.6         # [design] a fresh draw's sampled entries have the first draw's
                              # size within 1.6x (16 entries of one initialiser; batch 143's
                              # re-initialisations measured 1.12-1.43); an average over too
                              # many clients shrinks them round after round (0.60, 0.37, ...)
FRESH_TRAINED_FALL = 0.1      # [design] a round trained since its fresh draw: its loss fell
                              # by a tenth of the draw's (healthy rounds fall from ln 10 to
                              # 0.3-1.0, a round blown up to dead units ends at ln 10 again)
FRESH_MIN_WRITES = 2          # [design] such writes that must show it: training started again
                              # on purpose round after round (one could be a bug's re-init)


def diverging(ctx):
    """The step the loss started rising well above its best, or None."""
    s = ctx.summary
    if s is None or not ctx.enough_steps:
        return None
    margin = max(NOISE_SIGMAS * max(s["window_error"], _best_to_end_error(ctx)),
                 DIVERGE_RISE * (s["start"] - s["best"]), DIVERGE_REL * abs(s["best"]))
    above_start = s["end"] > s["start"] + max(NOISE_SIGMAS * s["window_error"],
                                              0.1 * abs(s["start"]))
    if not (s["end"] > s["best"] + margin or above_start):
        return None
    if s["best_window"] == len(s["medians"]) - 1:
        return None
    if _trained_down_since_fresh_start(ctx):
        return None
    return int(ctx.curve_steps[min(len(ctx.curve_steps) - 1, (s["best_window"] + 1) * s["width"])])


def fresh_starts(ctx):
    """(real-bug batch 143) The steps at which the loop put a fresh draw of the weights in
    place and trained again from there (``run.observed.rewritten_weights`` rows that jump by
    ``WRITE_JUMP_UPDATES`` or more and land ``FRESH_DRAW_LEFT`` or farther from the previous
    write than training had carried the weights), ``FRESH_MIN_WRITES`` of them or more; when
    they come on one period, carried on past the steps the monitor followed. [] when none.
    An active-learning loop that re-initialises its network each round, or cross-validation
    folds that reset it, do this: the loss is back at its start after each."""
    return ctx._once("fresh_starts", lambda: _fresh_starts(ctx))


def _fresh_starts(ctx):
    starts = sorted(int(row[0]) + 1 for row in observed_list(ctx, "rewritten_weights")
                    if row[1] >= WRITE_JUMP_UPDATES and row[2] >= FRESH_DRAW_LEFT and
                    _draw_sized(row))
    if len(starts) < FRESH_MIN_WRITES:
        return []
    period = _common_period(starts)
    last_step = int(ctx.curve_steps[-1]) if len(ctx.curve_steps) else starts[-1]
    if period >= 2 and all(b - a == period for a, b in zip(starts, starts[1:])):
        starts += list(range(starts[-1] + period, last_step + 1, period))
    return starts


def _common_period(steps):
    """The largest period all of ``steps`` (sorted) fall on: the gcd of their gaps (0 for
    fewer than two)."""
    return int(np.gcd.reduce(np.diff(steps))) if len(steps) > 1 else 0


def _draw_sized(row):
    """A write whose entries have the size of the first step's (within ``FRESH_DRAW_SIZE``
    times): a new draw of the initialiser. A federated average that shrinks the weights
    (real-bug batch 117's sum over all clients divided by too many) lands as far away but
    smaller. Rows saved before the size was kept count as drawn."""
    if len(row) < 4:
        return True
    return 1 / FRESH_DRAW_SIZE <= row[3] <= FRESH_DRAW_SIZE


def _trained_down_since_fresh_start(ctx):
    """The loss rose above its best only because training started again: the best came
    before the last fresh start (``fresh_starts``), and since that start it has come down
    (``trained_since_fresh_start``)."""
    starts = fresh_starts(ctx)
    if not starts:
        return False
    s, steps = ctx.summary, np.asarray(ctx.curve_steps)
    best_step = steps[min(len(steps) - 1, s["best_window"] * s["width"])]
    return best_step < starts[-1] and trained_since_fresh_start(ctx)


def trained_since_fresh_start(ctx):
    """Training started again from a fresh draw of the weights (``fresh_starts``) and the
    loss has come down since the last such start: the median of the last quarter of those
    steps lies ``FRESH_TRAINED_FALL`` of the fresh draw's loss (its first step) below it,
    and no step since rose ``BLEW_UP_FACTOR`` times above it (a last round that blows up,
    2.3 to 73, and settles near chance level with dead units is a divergence of its own).
    The loss then stands above its best of earlier rounds, and its start-to-end gain over
    the whole run is small, by design: neither a divergence nor a plateau. Worked out once
    (the divergence and the plateau tests both ask)."""
    return ctx._once("trained_since_fresh_start", lambda: _trained_since_fresh_start(ctx))


def _trained_since_fresh_start(ctx):
    starts = fresh_starts(ctx)
    if not starts:
        return False
    since = ctx.curve[np.asarray(ctx.curve_steps) >= starts[-1]]
    if len(since) < 8:
        return False
    fresh = float(since[0])
    blew_up = np.max(since) > fresh + (BLEW_UP_FACTOR - 1) * abs(fresh)
    fell = fresh - curve_median(since[-(len(since) // 4):]) > FRESH_TRAINED_FALL * abs(fresh)
    return fell and not blew_up


def _best_to_end_error(ctx):
    """The standard error of the difference between the best window's median and the last
    window's, from those two windows' own step-to-step noise. The run-wide noise (the
    summary's, a median over every step) is the quiet part's when the minibatch noise grows
    as training goes (mixup's blended batches: the loss of a confident model on a 50/50
    blend is far from its loss on a 90/10 one), and the lowest of twenty noisy window
    medians then sits a noise's width below the level the loss held. Public report: mixup
    labels left unmixed (https://github.com/DCASE-REPO/DESED_task/issues/93), whose
    run-wide noise (0.17) is a third of its late steps' (0.6)."""
    s = ctx.summary
    windows = np.array_split(np.arange(len(ctx.curve)), len(s["medians"]))
    errors = []
    for window in (windows[s["best_window"]], windows[-1]):
        diffs = np.diff(ctx.curve[window])
        if len(diffs) < 2:
            return 0.0
        noise = 1.4826 * float(curve_median(np.abs(diffs - curve_median(diffs)))) / math.sqrt(2)
        errors.append(1.25 * noise / math.sqrt(len(window)))   # as the summary's window_error
    return math.hypot(*errors)


def oscillation(ctx):
    """The swings and spikes of the loss around its running level when they exceed what
    minibatch noise gives (a dict of measurements), else None. Worked out once per
    diagnosis (several rules ask)."""
    return ctx._once("oscillation", lambda: _oscillation(ctx))


def saved_state_restores(ctx):
    """(real-bug batch 117) (period, steps of the writes) when the loop writes the model's
    weights on a fixed period and most of those writes restore a saved state exactly (the
    sampled weights land where the previous write put them: ``run.observed.
    rewritten_weights`` rows whose share of the distance left is 0), else None. Worked out
    once. A federated loop training one client model after another does this (each client
    starts from the round's global weights), as does a loop resetting its model for each
    episode: the loss then jumps at every write by design (a new client's data, a fresh
    start), which says nothing of the learning rate or of an oscillating optimizer."""
    return ctx._once("saved_state_restores", lambda: _saved_state_restores(ctx))


def _saved_state_restores(ctx):
    writes = [row for row in observed_list(ctx, "rewritten_weights")
              if row[1] >= WRITE_JUMP_UPDATES]
    restores = [row for row in writes if row[2] == 0.0]
    if len(restores) < RESTORE_MIN_WRITES or 2 * len(restores) <= len(writes):
        return None
    steps = sorted(int(row[0]) for row in writes)
    period = _common_period(steps)
    if period < 2:
        return None
    return period, steps


def batches_are_chunks(ctx):
    """(real-bug batch 152) Whether each batch is a coherent chunk of the data rather than
    rows drawn at random: the input's batch mean moves between recorded steps by more than
    CHUNK_MEAN_SPREAD times the bound random rows allow. Streamed data come so (one day,
    one site, one file per batch), and the loss of such a batch is high when its chunk is
    one the model has not fitted yet - a healthy regressor over 48 days, one per batch,
    spiked on 34 of 960 steps in its first 200 while learning the days' offsets - which
    says nothing of overshooting updates. Worked out once."""
    return ctx._once("batches_are_chunks", lambda: _batches_are_chunks(ctx))


def _batches_are_chunks(ctx):
    rows = [r.inputs for r in ctx.records
            if r.inputs and r.inputs.get("batch", 0) > 1 and "mean" in r.inputs and
            math.isfinite(r.inputs["mean"]) and math.isfinite(r.inputs.get("std", math.nan))]
    if len(rows) < CHUNK_MIN_RECORDS:
        return False
    means = np.array([row["mean"] for row in rows])
    random_rows = median([row["std"] / math.sqrt(row["batch"]) for row in rows])
    return random_rows > 0 and float(np.std(means)) > CHUNK_MEAN_SPREAD * random_rows


def rows_chosen_by_loss(ctx):
    """(real-bug batch 135) The rows a step's loss trains on were chosen by ranking
    per-sample losses (``run.observed.ranked_losses``: co-teaching's small-loss trick, hard
    example mining): its level jumps with what the choice lets in - a healthy co-teaching
    pair on noisy labels, median step loss 0.12, spikes to 1-2 on 6.6% of its steps - so
    single-step spikes say nothing of the learning rate there (its sustained swings still
    do)."""
    return bool(observed_list(ctx, "ranked_losses"))


def after_restores(ctx, steps):
    """A mask over ``steps`` (curve steps): True on the first steps after each write of the
    restores' period (``saved_state_restores``) - RESTORE_SETTLE_SHARE of the period, at
    least one step -, carried on past the writes the monitor followed (it keeps the largest
    of them, over the first and the latest few hundred optimizer steps) both ways: from the
    first period boundary of the run on. A client's loss on the round's global weights
    starts high and comes down over its first local steps (real-bug batch 183: 2.33, 2.13,
    1.93 after 0.82 at the previous client's end, on a 10-step period), so the step right
    after the write is not the only one above the running level."""
    restores = saved_state_restores(ctx)
    steps = np.asarray(steps)
    if restores is None:
        return np.zeros(len(steps), dtype=bool)
    period, written = restores
    settle = max(1, int(RESTORE_SETTLE_SHARE * period))
    first = written[0] % period              # the first write of the same phase
    return (steps > first) & ((steps - 1 - first) % period < settle)


def _oscillation(ctx):
    curve = ctx.curve
    n = len(curve)
    if n < MIN_STEPS_FOR_TREND or ctx.summary is None:
        return None
    k = OSCILLATION_WINDOW
    # the curve with its end values repeated k // 2 times on each side (np.pad's "edge"
    # mode, without its cost), and its n windows of k steps as one (n, k) array
    padded = np.concatenate([np.full(k // 2, curve[0]), curve, np.full(k // 2, curve[-1])])
    windows = padded[np.arange(n)[:, None] + np.arange(k)]
    # the running median: the middle of each window (k is odd), found by partial sorting
    # (np.median would also average two middles and costs twice as much)
    running = np.partition(windows, k // 2, axis=1)[:, k // 2]
    resid = curve - running
    # the loss scale of the problem: where training started, or for a classifier at least
    # the chance level ln(C) (a run resumed from a converged checkpoint starts near 0)
    # (real-bug batch 69) a loss with a known floor below zero (a Poisson NLL without its
    # log-factorial term, ``known_floor``) can start at 0.04 and converge at -3.8: its scale
    # is how far its start lies above that floor, not the start's magnitude
    floor = known_floor(ctx)
    above_floor = ctx.summary["start"] - floor if floor is not None else 0.0
    # (real-bug batch 114) a loss that falls below zero without a known floor (a Gaussian
    # NLL with a learned variance, 0.5 z^2 + log std, starts a little above zero and
    # settles below it) has no natural zero either: its scale is how far it fell, start to
    # best
    fell_below_zero = ctx.summary["start"] - ctx.summary["best"] \
        if ctx.summary["best"] < 0 else 0.0
    # (real-bug batch 191) a regression onto targets the run computes itself (TD values that
    # grow as they propagate, ``targets_moved_up``) has a loss whose scale grows with them:
    # its start (0.09) is a fifth of where the healthy run's loss peaked (0.43), and the
    # step-to-step noise of the grown problem read as 53% swings. Its scale is the highest
    # level its window medians reached
    grown = max(ctx.summary["medians"]) if targets_moved_up(ctx) else 0.0
    level = max(abs(ctx.summary["start"]), math.log(ctx.classes) if ctx.classes else 0,
                above_floor, fell_below_zero, grown, 1e-12)
    # 1. swings: the spread around the running level after the first third of the run,
    #    relative to the starting loss, against what minibatch noise gives at this batch size
    late = resid[n // 3:]
    swing = 1.4826 * float(curve_median(np.abs(late))) / level
    batch = batch_size(ctx)
    allowed = OSCILLATION_AMPLITUDE * math.sqrt(max(1.0, OSCILLATION_REFERENCE_BATCH / batch)) \
        if batch else OSCILLATION_AMPLITUDE
    allowed = max(allowed, _sample_noise(ctx, curve[n // 3:], level, batch))   # batch 335
    # 2. spikes: single steps far above the running level; below the reference batch the
    #    bar rises like the swings' allowance (one hard sample weighs 1/batch of the mean: at
    #    batch 4 a single confidently wrong digit lifts the loss by over a quarter of ln 10,
    #    on 3.9% of a healthy Adagrad run's 1500 steps, core variants 5; half of it on 0.7%)
    sigma = 1.4826 * curve_median(np.abs(resid))
    spike_rel = OSCILLATION_REL * math.sqrt(max(1.0, OSCILLATION_REFERENCE_BATCH / batch)) \
        if batch else OSCILLATION_REL
    spikes = np.flatnonzero((resid > OSCILLATION_SIGMAS * max(sigma, 1e-12)) &
                            (resid > spike_rel * level) &
                            ~after_restores(ctx, ctx.curve_steps[:n]))   # batch 117
    spiky = len(spikes) >= max(OSCILLATION_MIN_SPIKES, OSCILLATION_SPIKE_SHARE * n) and \
        not (batch and batch < OSCILLATION_SPIKE_MIN_BATCH) and \
        not rows_chosen_by_loss(ctx) and \
        not batches_are_chunks(ctx)         # batch 152: the chunk drawn makes the spikes
    if swing <= allowed and not spiky:
        return None
    return {"swing": swing, "allowed": allowed, "batch": batch, "spikes": spikes, "n": n,
            "spike_rel": spike_rel}


def _sample_noise(ctx, late, level, batch):
    """(real-bug batch 335) The swing a regression loss's own noise explains, in units of
    ``level``: the batch mean of B samples' errors spreads by cv / sqrt(B) of its value, cv
    the samples' errors' spread over their mean (``LossCall.sample_loss_cv``, the median over
    the recorded calls of an element-wise regression loss), and its value late in the run is
    the median of ``late``. Gaussian errors give cv = sqrt(2) for a squared error (pure noise
    then swings a batch-16 regression by 35% of its level, more than the curve's own
    allowance, which was measured on classifiers); a price series with a crash day in 20
    gives cv about 3, and a healthy forecaster's loss swung by 28% at batch 64. SAMPLE_NOISE_SIGMAS
    of those standard errors are allowed. 0.0 when fewer than
    SAMPLE_NOISE_MIN_CALLS calls were read."""
    cvs = [c.sample_loss_cv for c in observed_list(ctx, "loss_calls")
           if getattr(c, "sample_loss_cv", None) is not None and math.isfinite(c.sample_loss_cv)]
    if len(cvs) < SAMPLE_NOISE_MIN_CALLS or not batch or len(late) == 0:
        return 0.0
    now = max(float(np.median(late)), 0.0) / level
    return SAMPLE_NOISE_SIGMAS * float(np.median(cvs)) / math.sqrt(batch) * now


FLOORED_LOSSES = ("PoissonNLLLoss", "poisson_nll_loss")   # [design] (real-bug batch 69)
                              # losses with a known floor given their targets: a Poisson NLL
                              # without its log(target!) term, rate - target * log(rate), is
                              # lowest at rate = target, where it is target - target * log(target)
                              # (below zero for targets above e): a run converging there falls
                              # below zero without being unbounded, from a start near zero


def known_floor(ctx):
    """The lowest value the run's loss can take when every recorded loss call is a loss with
    a known floor (``FLOORED_LOSSES``), from the largest target seen (the floor per element,
    t - t log t, is lowest at the largest t above 1); None otherwise (worked out once)."""
    return ctx._once("known_floor", lambda: _known_floor(ctx))


def _known_floor(ctx):
    calls = observed_list(ctx, "loss_calls")
    if not calls or any(c.loss not in FLOORED_LOSSES for c in calls):
        return None
    highest = max(c.target_max for c in calls)
    if not math.isfinite(highest) or highest < 0:
        return None
    per_element = min(0.0, highest - highest * math.log(highest)) if highest > 0 else 0.0
    if any(c.reduction == "sum" for c in calls):
        per_element *= max(math.prod(int(n) for n in c.output_shape or (1,)) for c in calls)
    return per_element


def batch_size(ctx):
    sizes = [r.inputs["batch"] for r in ctx.records if r.inputs and "batch" in r.inputs]
    return float(median(sizes)) if sizes else None


def at_chance(ctx):
    """Whether a classifier's loss ends at ln(C), stayed there through the run's last fifth,
    never got clearly below it, and its outputs are a near-uniform guess.

    The last window alone is a tenth as many steps as the last fifth: a loss still falling
    through ln(C) can pass it in that one window (an SSD-like loss of 3 outputs, falling
    from 7.3, had its last window at 1.11 and its last fifth at 1.54). And C is read off
    the output's width, which any model with C outputs has: ln(C) is a classifier's chance
    level only when its outputs, read as class scores, are nearly uniform
    (``guess_entropy``)."""
    s = ctx.summary
    if s is None or not ctx.enough_steps or ctx.classes is None or ctx.classes < 2:
        return False
    chance = math.log(ctx.classes)
    tol = CHANCE_TOLERANCE * chance
    if not (abs(s["end"] - chance) <= tol and abs(s["tail"] - chance) <= tol and
            s["best"] >= chance - 2 * tol):
        return False
    entropy = guess_entropy(ctx)
    return entropy is None or entropy >= CHANCE_MIN_GUESS_ENTROPY


def guess_entropy(ctx):
    """The entropy of the softmax of the model's recorded outputs, per row, as a share of
    ln(C): the median over the records of the run's last half (None when none has a 2-D
    finite output). A classifier at chance guesses uniformly, about 1; outputs that are
    not class scores (a flow's samples, a box's coordinates) are far from uniform rows."""
    records = [r for r in ctx.records[len(ctx.records) // 2:]
               if r.output is not None and np.ndim(r.output) == 2 and r.output.shape[1] >= 2
               and r.output.shape[0] > 0 and np.all(np.isfinite(r.output))]
    shares = []
    for r in records:
        scores = r.output - r.output.max(axis=1, keepdims=True)
        probs = np.exp(scores)
        probs /= probs.sum(axis=1, keepdims=True)
        entropy = -(probs * np.log(np.maximum(probs, 1e-300))).sum(axis=1).mean()
        shares.append(float(entropy) / math.log(r.output.shape[1]))
    return float(median(shares)) if shares else None


def entropy_floor(ctx):
    """The lowest value a loss of soft cross-entropies written by hand can take: its value
    times the share its targets' own entropy has of the cross-entropy, on the first recorded
    steps that measured one (``run.observed.soft_cross_entropies``), the median over them;
    None without such a loss, or when a step's numbers are not a distribution's (a target
    below 0, an entropy above the cross-entropy). Worked out once.

    A cross-entropy against a soft target t falls no lower than H(t): against a ranking
    list's label-proportional targets H(t) was 97% of the starting loss (real-bug batch 192,
    2.89 of 2.98), and a healthy run's 3% fall is all there was to fall."""
    return ctx._once("entropy_floor", lambda: _entropy_floor(ctx))


def _entropy_floor(ctx):
    by_step = {}
    for step, entropy, cross, lowest in observed_list(ctx, "soft_cross_entropies"):
        if ctx.cutoff is not None and step >= ctx.cutoff:
            continue
        sums = by_step.setdefault(step, [0.0, 0.0, math.inf])
        sums[0], sums[1], sums[2] = sums[0] + entropy, sums[1] + cross, min(sums[2], lowest)
    floors = []
    for step, (entropy, cross, lowest) in sorted(by_step.items()):
        loss = ctx.loss_by_step.get(step)
        if loss is None or not all(map(math.isfinite, (entropy, cross, lowest, loss))):
            continue
        if lowest < 0 or entropy < 0 or cross <= 0 or entropy > cross * ENTROPY_ROUNDING \
                or loss <= 0:
            return None                      # not a distribution's cross-entropy
        floors.append(loss * entropy / cross)
    return float(median(floors)) if floors else None


def improvable(ctx, s):
    """How far the loss could fall from its start: to its entropy floor when it has one
    (``entropy_floor``) below the start, else all of its start (abs)."""
    floor = entropy_floor(ctx)
    if floor is not None and 0 <= floor < s["start"]:
        return s["start"] - floor
    return abs(s["start"])


def plateaued(ctx):
    """Whether the loss is surely not improving: even the optimistic end of the noise band
    around its gain (start window vs the last fifth) stays below PLATEAU_IMPROVEMENT of what
    it could gain (``improvable``), and it did not rise either (a loss that rose is
    diverging, not flat)."""
    s = ctx.summary
    if s is None or not ctx.enough_steps:
        return False
    gained = s["start"] - s["tail"]
    band = PLATEAU_IMPROVEMENT * improvable(ctx, s)
    if gained + PLATEAU_CONFIDENCE * s["gain_error"] >= band:
        return False        # it may be improving
    if gained - PLATEAU_CONFIDENCE * s["gain_error"] < -band:
        return False        # it surely rose by more than the band: not a plateau
    if ctx.classes and s["best"] < CONVERGED_SHARE * math.log(ctx.classes):
        return False        # a classifier already far below chance: converged, not stuck
    if trained_since_fresh_start(ctx):
        return False        # batch 143: retrained from scratch, and the last round learned
    return True


def loss_blew_up(ctx):
    """NaN, divergence, oscillation, or a last window far above the first."""
    return ctx.first_nan_step is not None or curve_blew_up(ctx)


def curve_blew_up(ctx):
    """``loss_blew_up`` without the NaN: divergence, oscillation, or a last window far above
    the first, in the finite curve before any NaN."""
    s = ctx.summary
    return diverging(ctx) is not None or oscillation(ctx) is not None or \
        (s is not None and s["end"] > s["start"] * BLEW_UP_FACTOR and
         s["end"] > s["start"] + NOISE_SIGMAS * s["window_error"])


def learning_poor(ctx):
    """Did training fail to make real progress (or blow up)? Symptoms (dead units,
    saturation, vanishing or exploding gradients) are warnings only when it did.

    Computed from the curve, so it does not depend on which rules ran before: NaN, a
    diverging, oscillating, at-chance or flat loss, or less than POOR_IMPROVEMENT gained.
    """
    if "learning_poor" not in ctx.cache:
        ctx.cache["learning_poor"] = bool(ctx.first_nan_step is not None or
                                          curve_poor(ctx))
    return ctx.cache["learning_poor"]


def curve_poor(ctx):
    """``learning_poor`` without the NaN: what the finite curve before it says (diverging,
    oscillating, at chance, flat, or less than POOR_IMPROVEMENT gained). A rule that must
    not read a sudden NaN as its own symptom asks this (``calm_before_nan``)."""
    if "curve_poor" not in ctx.cache:
        s = ctx.summary
        ctx.cache["curve_poor"] = bool(
            diverging(ctx) is not None or oscillation(ctx) is not None or at_chance(ctx) or
            plateaued(ctx) or
            (s is not None and gained_beyond_noise(_from_first_loss(ctx, s),
                                                   cross_entropy_chance(ctx),
                                                   entropy_floor(ctx)) <
             POOR_IMPROVEMENT))
    return ctx.cache["curve_poor"]


def _from_first_loss(ctx, s):
    """(real-bug batch 116) The curve summary with its start taken at the first loss when the
    optimizer was given a closure (``run.observed.closure_steps``): L-BFGS runs up to
    ``max_iter`` iterations inside one step, so a healthy run is near its optimum within
    its first window (a style transfer: 298 at step 0, 8.7 at step 1, 5.6 from step 4), and
    that window's median says nothing of what was gained. Other summaries are returned as
    they are."""
    if not observed_list(ctx, "closure_steps") or not len(ctx.curve) or \
            not int(ctx.curve_steps[0]) == 0 or not ctx.curve[0] > s["start"]:
        return s
    return {**s, "start": float(ctx.curve[0])}


def cross_entropy_chance(ctx):
    """ln(C) when the loss is one cross-entropy over C classes and nothing else, else None:
    on every measured step the loss's only addend that reaches the model's output is a
    class-index loss's node, averaged, added as it is (``run.observed.loss_reductions``),
    and the class-index loss calls (``loss_calls``) all score C classes on their axis 1.
    Such a loss costs ln(C) for a uniform guess, however the classifier started."""
    rows = observed_list(ctx, "loss_reductions")
    if not rows or not all(len(addends) == 1 and addends[0][0] in CLASS_LOSS_NODES and
                           addends[0][1] == "mean" and addends[0][2] == 1.0
                           for _, addends in rows):
        return None
    widths = {c.output_shape[1] for c in observed_list(ctx, "loss_calls")
              if c.loss in CLASS_INDEX_LOSSES and len(c.output_shape) >= 2}
    if len(widths) != 1:
        return None
    classes = widths.pop()
    return math.log(classes) if classes >= 2 else None


FIRST_LOSSES = 3            # [design] the median of the first judged losses: one batch is noisy
FRESH_SHARE = 1 - CHANCE_TOLERANCE   # [karpathy] "verify loss @ init": a fresh classifier
                            # starts at ln(C) within a few percent (digits MLP: 2.28-2.32 for
                            # ln 10 = 2.30, measured); CHANCE_TOLERANCE is this module's "at
                            # chance". A checkpoint 40 SGD steps in already sits at 0.93 ln(C)
                            # (resumed_optimizer_built_over_saved_net's twin): not fresh


def starts_fresh(ctx):
    """(real-bug batch 100) (first losses' median, ln C) when the run's first losses are a
    fresh classifier's, else None (not one cross-entropy, too few losses, or starting below
    FRESH_SHARE x ln C)."""
    chance = cross_entropy_chance(ctx)
    losses = np.asarray(ctx.losses, dtype=float)[:FIRST_LOSSES]
    if chance is None or len(losses) < FIRST_LOSSES or not np.all(np.isfinite(losses)):
        return None
    first = float(np.median(losses))
    return (first, chance) if first >= FRESH_SHARE * chance else None



def gained_beyond_noise(s, chance=None, floor=None):
    """The share of the starting loss gained down to the best window, that window's median
    taken BEST_WINDOW_BIAS standard errors higher; for a cross-entropy over C classes
    (``chance``: ln(C)) that started above ln(C), the share of ln(C) gained below it. A
    classifier whose first logits are far too large (sums over a graph's hubs, a fresh head
    on large pretrained features, an LSTM blown up on its first steps) starts well above a
    uniform guess, and falling to that guess is no learning: a graph network summing its
    neighbours (graph_sum_aggregation_not_normalised, seeds shifted by 1000) fell from 40.7
    to 2.19 (95%) with ln(10) = 2.30, 5% below chance, where its fixed twin reaches 0.14.

    The best is the least of many noisy window medians, so on a loss that jumps about it
    lies below any level the loss held: 8
    micro-batches accumulated without dividing (accumulated_loss_not_divided, seeds shifted
    by 1000) swing the loss by 0.43 from step to step, and their best window, 1.37, made a
    run that ended above where it started (2.04 -> 2.09) count as 33% better. Taken two
    standard errors up (0.48), it gains 10%.

    A loss with an entropy floor (``entropy_floor``: soft targets) can gain only down to it:
    the share is of the start's height above the floor."""
    start = s["start"] if chance is None else min(s["start"], chance)
    scale = start - floor if floor is not None and 0 <= floor < start else abs(start)
    return (start - s["best"] - BEST_WINDOW_BIAS * s["window_error"]) / max(scale, 1e-12)


def calm_before_nan(ctx):
    """Whether the run's NaN came out of a calm run: enough finite steps before it to judge,
    a finite curve that neither diverged, oscillated nor blew up, the last
    LAST_LOSSES_BEFORE_NAN losses before it no higher than where training started, and the
    updates at the last judged record before it below CALM_UPDATE_RATIO of the weights. A
    learning rate blows a run up by growing it (large updates, a rising loss) before float32
    overflows; a NaN that arrives in one step out of a steady, falling loss is made by one
    operation (log(0), 0/0: NAN_BORN_IN_FORWARD names it when a record sees it), not by the
    rate. Public report: an unclamped log of sigmoid probabilities
    (https://github.com/yhenon/pytorch-retinanet/issues/3)."""
    if ctx.first_nan_step is None or not ctx.enough_steps or ctx.summary is None:
        return False
    if curve_blew_up(ctx):
        return False
    if float(np.max(ctx.curve[-LAST_LOSSES_BEFORE_NAN:])) > ctx.summary["start"]:
        return False
    ratios = ctx.ratios()
    last = ratios[-1] if len(ratios) else np.zeros(0)
    last = last[np.isfinite(last)]
    return bool(last.size) and float(median(last.tolist())) < CALM_UPDATE_RATIO


def policy_surrogate(ctx):
    """The loss is a policy-gradient surrogate: log_prob(actions) times advantages of both
    signs (``monitor/policy_gradient_terms.py``), within a step's batch or, one episode a
    step, between steps. Its level is no objective (it moves with each batch's advantages
    and the policy's entropy), so a rise says nothing of divergence. (Real-bug batch 200: an
    architecture-search controller's REINFORCE, one sampled architecture a step with its
    reward minus a moving baseline, swung 26% and was read as oscillating.)"""
    signs = {row[2] for row in observed_list(ctx, "policy_gradient_terms")}
    return "both" in signs or {"positive", "negative"} <= signs


PLAIN_REDUCTIONS = ("MeanBackward0", "SumBackward0")   # a tensor averaged or summed as it is


def energy_gap(ctx):
    """(real-bug batch 130) The loss is a gap between two averages of the model's own output,
    one added and one subtracted (``run.observed.loss_reductions``: plain means or sums of
    the output, constant scales of both signs, on most measured steps): contrastive
    divergence's E(data) - E(samples), a WGAN critic's D(fake) - D(real). Such a gap starts
    near zero and settles where the sampler or the rival balances it, not at a minimum, so
    its level and its swings measure no progress (a healthy CD-k energy model on a ring of
    Gaussians: start -0.005, best -0.18, end -0.07, read as oscillating and diverging)."""
    rows = observed_list(ctx, "loss_reductions")

    def gap(addends):
        signs = {addend[2] > 0 for addend in addends
                 if addend[0] in PLAIN_REDUCTIONS and addend[2] is not None and addend[2] != 0}
        return signs == {True, False}
    return bool(rows) and 2 * sum(gap(addends) for _, addends in rows) > len(rows)


def loss_without_level(ctx):
    """A policy-gradient surrogate or an energy gap: losses whose level is no objective, so
    rising above their best or swinging around their start says nothing of divergence."""
    return policy_surrogate(ctx) or energy_gap(ctx)


def adversarial_turns(ctx):
    """The watched network takes turns with another one: another optimizer stepped while it
    held a gradient from a backward since its own last step (``monitor/other_turn_gradients.py``
    gave a verdict, "carried" or "cleared"). Either side of a GAN: the discriminator, which the
    generator's loss goes back through, and the generator, whose loss is the discriminator's
    verdict on its fakes. Its loss is one side of a game, not an objective that falls: as the
    generator learns, the discriminator's loss climbs back towards where it started (2 ln 2 at
    the game's balance); as the discriminator learns, the generator's loss climbs and its
    gradient with it. A healthy conditional GAN on the digits
    (discriminator_steps_with_generator_loss_gradient's fixed twin, seeds shifted by 1000 and
    2000) fell 16% to its best and ended 1 to 4% from its start, which read as a plateau; the
    same cGAN's generator with cross-entropy losses (real-bug batch 120's reports) saw its
    loss climb 0.7 -> 3 and its gradient grow 218 times over 1,500 steps."""
    return bool(observed_list(ctx, "other_turn_gradients"))


def loss_through_rival(ctx):
    """``adversarial_turns``, and the watched loss goes back through the other network's
    parameters (a row's third field, ``monitor/other_turn_gradients.py``): a GAN's generator,
    whose loss is its rival's verdict on the fakes and climbs as the rival learns."""
    return any(len(row) > 2 and row[2] for row in observed_list(ctx, "other_turn_gradients"))
