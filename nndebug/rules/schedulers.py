"""Rules about the learning-rate schedulers, read from their state (``run.observed.schedulers``,
``monitor/schedulers.py``) together with the rates the records saw and the loss curve.

The records alone show a rate that falls; a step decay and a plateau scheduler watching the
wrong number draw the same staircase. The plateau scheduler's own counters tell them apart.
"""
import math

from ..findings import Finding
from .context import median
from .curve import NOISE_SIGMAS
from .graph import rule

LOSS_STILL_FALLING = 0.2      # [measured] the training loss ended 20% or more below where it
                              # was before the first cut: it was not on a plateau (the
                              # accuracy case: 0.40 -> 0.18; a plateau that a plateau
                              # scheduler rightly cut: under 5%, PLATEAU_IMPROVEMENT)
FLOOR_CALLS_PER_CUT = 3       # [design] at the eps floor the counters' sum is only checked
                              # for whole cuts, which a metric that did improve meets by
                              # chance once in (patience + 1 + cooldown) runs: trusted from
                              # 3 calls per cut (patience 2) up, not for patience 0 or 1
CUT_TOLERANCE = 0.05          # [design] log(rate ratio) / log(factor) this close to a whole
                              # number: the rate moved by whole cuts of this scheduler only


def plateau_schedulers(run):
    """The observed ReduceLROnPlateau states (``SchedulerState``), or []."""
    observed = getattr(run, "observed", None)
    return [s for s in getattr(observed, "schedulers", None) or []
            if s.type == "ReduceLROnPlateau"]


def cuts_made(first_lr, lr_now, factor):
    """How many times a plateau scheduler multiplied the rate by ``factor`` to go from
    ``first_lr`` to ``lr_now``, or None when the ratio is not a whole number of cuts
    (another scheduler, a hand-made change, the ``min_lr`` floor reached)."""
    if not (first_lr > 0 and lr_now > 0 and factor and 0 < factor < 1):
        return None
    cuts = math.log(lr_now / first_lr) / math.log(factor)
    whole = round(cuts)
    return whole if whole >= 0 and abs(cuts - whole) <= CUT_TOLERANCE else None


def at_floor(state, lr_now):
    """True when another cut would move the rate by ``eps`` or less: ReduceLROnPlateau
    skips such a cut, but its counters count it all the same (each cut resets them), so
    past this floor the rate shows fewer cuts than the counters made. (A floor set by
    ``min_lr`` is left out: the rate reaches it after a few cuts, where a metric that did
    improve now and then can add up to whole cuts by chance.)"""
    if not (state.factor and 0 < state.factor < 1 and lr_now > 0):
        return False
    return lr_now * (1 - state.factor) <= (state.eps or 0.0)


def improvements_missing(state, cuts, floored=False):
    """True when the counters say the metric never beat its first value (outside the
    cooldowns): every call after the first then counted as bad, so the calls add up to
    exactly ``k * (patience + 1)`` bad ones, the cooldown calls after each of the ``k``
    cuts and the bad ones since the last cut. Any improvement resets the count and breaks
    the sum. ``k`` is ``cuts``, the cuts the rate shows; when the rate sits at its eps floor
    (``floored``), the scheduler counted cuts it could not make, and ``k`` is any whole
    number from ``cuts`` up (with FLOOR_CALLS_PER_CUT calls or more per cut)."""
    needed = (state.patience, state.cooldown, state.cooldown_counter, state.num_bad_epochs)
    if any(value is None for value in needed) or state.calls < 2:
        return False
    per_cut = state.patience + 1 + state.cooldown
    counted = state.calls - 1 + state.cooldown_counter - state.num_bad_epochs
    if not floored or per_cut < FLOOR_CALLS_PER_CUT:
        return counted == cuts * per_cut
    k = counted / per_cut
    return k == round(k) and round(k) >= cuts


def first_cut_step(ctx, state, first_lr):
    """Where the first cut came, or None: the scheduler's calls taken as evenly spread over
    the run (once per epoch), the first cut at call ``patience + 2``; never later than the
    first record that saw a rate below ``first_lr`` (records are sparse: that one may come
    long after the cut)."""
    seen = next((r.step for r in ctx.records
                 if r.lrs and r.lrs[0] < first_lr * (1 - 1e-6)), None)
    n_steps = getattr(ctx.run, "n_steps", 0) or 0
    if seen is None or not state.calls or n_steps <= 0:
        return seen
    return min(seen, round(n_steps * (state.patience + 2) / state.calls))


def loss_fall_after(ctx, step):
    """(loss before ``step``, loss at the end) as medians of a window each, or None when
    the curve is too short to tell."""
    summary = ctx.summary
    if summary is None or step is None:
        return None
    before = ctx.curve[(ctx.curve_steps < step) & (ctx.curve_steps >= step - summary["width"])]
    if len(before) < 3:
        return None
    return float(median(before.tolist())), summary["tail"]


# what a metric that never improved says, by mode: (what it never did, what it watches, fix)
NEVER_IMPROVED = {
    "min": ("went below", "something that rises when training goes well (an accuracy, a "
            "score), or not the loss",
            "Step it with the validation loss (scheduler.step(val_loss)), or build it with "
            "mode='max' when it is given an accuracy or a score."),
    "max": ("rose above", "a number that falls when training goes well (a loss, an error "
            "rate) in mode 'max'",
            "Build it with mode='min' (the default) when it is stepped with a loss or an "
            "error rate; mode='max' is for an accuracy or a score.")}


@rule(produces="PLATEAU_SCHEDULER_WRONG_METRIC", explains={"LR_TOO_LOW", "LOSS_PLATEAU"})
def plateau_scheduler_wrong_metric(ctx):
    """A ReduceLROnPlateau whose metric never improved on its first value, that cut the rate
    for it, while the training loss kept falling after the first cut: in mode "min" it is
    stepped with something that rises as training goes well (an accuracy, an F1 score) or
    with a number that is not the loss at all; in mode "max", with a loss. Public reports:
    https://github.com/md-mohaiminul/ViS4mer/issues/4 (an accuracy in mode "min"),
    https://github.com/microsoft/VideoX/issues/135 (the negated validation loss in mode
    "min", cut down to the eps floor, where the counters count cuts the rate no longer
    shows: ``at_floor``)."""
    known = [r.lrs for r in ctx.records if r.lrs]
    if not known or not ctx.enough_steps:
        return None
    for state in plateau_schedulers(ctx.run):
        if state.mode not in NEVER_IMPROVED or not state.lrs:
            continue
        cuts = cuts_made(known[0][0], state.lrs[0], state.factor)
        if not cuts or not improvements_missing(state, cuts, at_floor(state, state.lrs[0])):
            continue
        fall = loss_fall_after(ctx, first_cut_step(ctx, state, known[0][0]))
        if fall is None:
            continue
        before, end = fall
        noise = NOISE_SIGMAS * ctx.summary["gain_error"]
        if not (before - end > max(LOSS_STILL_FALLING * abs(before), noise)):
            continue
        never, watches, fix = NEVER_IMPROVED[state.mode]
        return Finding(
            code="PLATEAU_SCHEDULER_WRONG_METRIC", severity="warning", step=ctx.first_step,
            message=f"A ReduceLROnPlateau in mode '{state.mode}' cut the learning rate {cuts} "
                    f"time(s) (from {known[0][0]:.1e} to {state.lrs[0]:.1e}) because the "
                    f"number it is stepped with never {never} its first value "
                    f"({state.best:.4g}) in {state.calls} calls, while the training loss kept "
                    f"falling after the first cut ({before:.4g} -> {end:.4g}): it watches "
                    f"{watches}.",
            evidence={"mode": state.mode, "best": state.best, "calls": state.calls,
                      "cuts": cuts, "patience": state.patience, "factor": state.factor,
                      "first_lr": known[0][0], "lr_now": state.lrs[0],
                      "loss_before_first_cut": before, "loss_end": end},
            fix=fix)
    return None
