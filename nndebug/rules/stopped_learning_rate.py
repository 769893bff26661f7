"""Rules about a learning rate that sat at zero for a large part of the run: every step
there computes a loss and gradients and changes nothing.

A schedule reaches zero on purpose only at its very end (a linear or cosine decay to 0
touches it on the last step) or at its very start (a warmup from 0 leaves it on the first
step). A rate at zero for a tenth of the run or more is a schedule that ran ahead of the
training (stepped several times per optimizer step, built for fewer steps than the run
has) or one that starts late (a warmup counted in epochs but stepped per batch, or the
other way round).

The records know each group's rate at their step (``StepRecord.lrs``, read when the step
is recorded: before or after the loop stepped its scheduler, which one the rule cannot
tell); the records thin out as the run grows, so the stretch at zero is bounded from below:
from the step after the first record of a zero tail to the end of the run, from the start
of the run to the last record of a zero head (that record's own step not counted). The
schedulers the monitor found (``run.observed.schedulers``) tell the rate at the end and how
often they were stepped, which the message names when it explains the cause.

A tail between two records is known exactly from the optimizer's step hook
(``run.observed.stopped_rates``: the first update of the stretch at zero still running at
the end; real-bug batch 284, "Learning rate is 0 in last epoch",
https://github.com/liuzechun/ReActNet/issues/32: a linear decay stepped before each epoch's
batches reaches 0 at the start of the last epoch, whose 45 of 225 steps then change no
weight while the records, at steps 64 and 128, still saw the rate falling).
"""
from ..findings import Finding
from .context import highest_rates, observed_list
from .graph import rule

STOPPED_FRACTION = 1e-6   # [design] a rate below a millionth of the run's highest is stopped:
                          # no schedule that still trains decays six decades (a step decay
                          # by 0.1 three times, ReduceLROnPlateau's usual cuts: 1e-3 to 1e-4)
STOPPED_SHARE = 0.1       # [design] at zero for at least a tenth of the run. A healthy linear
                          # or cosine decay to 0 sits below the floor on its last step only (a
                          # cosine's rate is under 1e-6 of its peak in its last 0.07%), a
                          # warmup from 0 on its first step only


def _stopped(rate, peak):
    return rate <= STOPPED_FRACTION * peak


def _scheduler_end(ctx):
    """(the schedulers' highest rate when last read, their step() calls) or (None, None)."""
    states = [s for s in getattr(ctx.run.observed, "schedulers", None) or [] if s.lrs]
    if not states:
        return None, None
    return max(max(s.lrs) for s in states), max(s.calls for s in states)


def _zero_stretches(rates, peak, n_steps, end_rate):
    """(steps at zero at the start, steps at zero at the end), each a lower bound."""
    head = 0
    for step, rate in rates:
        if not _stopped(rate, peak):
            break
        head = step
    tail = 0
    if end_rate is None or _stopped(end_rate, peak):   # still at zero when last read
        for step, rate in reversed(rates):
            if not _stopped(rate, peak):
                break
            tail = n_steps - step - 1
    if head >= n_steps:                # zero on every record: one stretch, the whole run
        tail = 0
    return head, tail


def _hooked_tail(ctx, n_steps):
    """The updates at zero at the end of the run the step hook saw (0 without its row)."""
    rows = observed_list(ctx, "stopped_rates")
    if not rows:
        return 0
    start = int(rows[-1][0])
    return max(0, n_steps - start) if 0 <= start < n_steps else 0


@rule(produces="LR_AT_ZERO",
      explains={"LR_TOO_LOW", "PARAMS_NOT_UPDATING", "LOSS_PLATEAU", "LOSS_AT_CHANCE"})
def lr_at_zero(ctx):
    rates = highest_rates(ctx)
    n_steps = getattr(ctx.run, "n_steps", 0) or 0
    if len(rates) < 2 or n_steps <= 0:
        return None
    peak = max(rate for _, rate in rates)
    if not peak > 0:
        return None           # never above zero: nothing was scheduled (or no rate known)
    end_rate, calls = _scheduler_end(ctx)
    head, tail = _zero_stretches(rates, peak, n_steps, end_rate)
    tail = max(tail, _hooked_tail(ctx, n_steps))
    stopped = head + tail
    if stopped < STOPPED_SHARE * n_steps:
        return None
    where = []
    if head:
        where.append(f"the first {head} steps")
    if tail:
        where.append(f"the last {tail} steps")
    ran_ahead = calls is not None and calls > n_steps
    hint = (f" The scheduler was stepped {calls} times in {n_steps} training steps: it runs "
            f"{calls / n_steps:.3g} x ahead of the training." if ran_ahead else "")
    return Finding(
        code="LR_AT_ZERO", severity="warning", step=rates[0][0] if head else n_steps - tail,
        message=f"The learning rate was zero (below {STOPPED_FRACTION:g} x its highest value, "
                f"{peak:.3g}) for at least {stopped} of the run's {n_steps} steps "
                f"({stopped / n_steps:.0%}: {' and '.join(where)}): those steps compute "
                "losses and gradients and change no weight." + hint,
        evidence={"peak_lr": peak, "steps_at_zero_at_start": head,
                  "steps_at_zero_at_end": tail, "n_steps": n_steps,
                  "scheduler_calls": calls, "scheduler_final_lr": end_rate,
                  "threshold_share": STOPPED_SHARE},
        fix="Make the schedule span the steps the run really takes: build it for the number "
            "of optimizer steps (epochs x batches / accumulation, times the processes when "
            "each process steps it), and step it once per optimizer step (or once per epoch "
            "when it counts epochs, after that epoch's batches: stepped before them, the "
            "last epoch runs at the rate the schedule ends on).")
