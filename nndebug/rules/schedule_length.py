"""SCHEDULE_LENGTH_MISMATCH: a learning-rate schedule stepped a different number of times
than it was planned for, read from the scheduler itself (``SchedulerState.length`` and
``calls``, ``monitor/schedulers.py``) and the optimizer steps the run took.

Two ways it goes wrong, both silent:

- **stepped once per epoch, planned in batches**: a schedule sized for the run's optimizer
  steps (``OneCycleLR(epochs=E, steps_per_epoch=len(loader))``, a warm-up of
  ``total_iters`` batches) but stepped after the batch loop walks one step in
  ``len(loader)``: it never leaves the start of its warm-up. Public report: "[bug]
  OneCycleLR scheduler should be called after every batch",
  https://github.com/ageron/handson-mlp/issues/28.
- **a cosine shorter than the run**: ``CosineAnnealingLR`` is periodic, so once stepped past
  ``T_max`` the rate climbs back towards its peak; with ``T_max`` a fraction of the run the
  rate falls and rises again several times and the run may end at the peak, not annealed.
  Public report: "Learning rate scheduler doesn't match as stated in the paper",
  https://github.com/deepcam-cn/FaceQuality/issues/10 ("T_max hard-code 10 epochs (10 *
  len(train_loader)) ... this would make the LR varies in a cyclical way").

- **planned in micro-batches, stepped per optimizer step**: with gradients accumulated over
  k micro-batches, a total counted as ``len(train_loader) * epochs`` is k times the
  optimizer steps the run takes; stepped after each ``optimizer.step()``, the schedule walks
  1/k of its plan - a warm-up that barely ends, a decay that never does. Public report:
  "Linear decay scheduler doesn't take gradient accumulation into account",
  https://github.com/PiotrNawrot/nanoT5/pull/8 (real-bug batch 271: the cosine ended at 98%
  of its peak). Read against the train-mode backward passes the run took
  (``observed.train_backward_total``): the plan equals them, not the optimizer steps.

A schedule planned in epochs and stepped per epoch has a length far below the run's
optimizer steps and is not judged by the first; ``CosineAnnealingWarmRestarts`` (restarts
meant) has no length here and is not judged by the second.
"""
import math

from ..findings import Finding
from .context import highest_rates, observed_list
from .curve import learning_poor
from .graph import rule

PLANNED_FOR_RUN = 0.1         # [design] a length within 10% of the run's optimizer steps is
                              # a schedule sized for them (epochs x len(loader), give or take
                              # a last partial batch or an accumulation remainder)
STEPPED_TOO_RARELY = 4        # [design] at least 4 optimizer steps per scheduler call (an
                              # epoch of 4 batches or more); the planted notebook: 20
PERIODIC_TYPES = {"CosineAnnealingLR"}   # [design] schedules that climb back past their length
                              # (a LambdaLR whose lambda does: SchedulerState.periodic)
SAME_STRIDE = 0.02            # [design] the length a whole number of strides to 2% (or one
                              # step): T_max=len(train_loader) is the stride exactly; a T_max
                              # in epochs equal to the batches per epoch by chance, watched
                              # over less than half of it, is the look-alike this leaves
HALF_WALKED = 0.5             # [design] a schedule stepped per epoch that walked at most half
                              # of a length counted in batches (SimCLR#8: 8 of 40, 20%)
PAST_LENGTH = 1.5             # [design] calls at least 1.5 x T_max: past the trough by half a
                              # cosine's climb (3 T_max is a full period, back at the peak)
ENDED_HIGH = 0.5              # [design] the rate at the end is at least half the base rate:
                              # the run ended well up a climb, not annealed
FULL_CYCLES = 3.0             # [design] calls at least 3 x T_max: the cosine went down to
                              # its floor, back up to the base rate (2 T_max) and half-way
                              # down again - it cycled, wherever the run ends - a T_max counted in
                              # epochs stepped every batch (core variants 3: T_max=6 over 150
                              # batches ended at the floor, at 0.74 against the twin's 0.53)
PLATEAU_PER_STEP = 0.9        # [design] a ReduceLROnPlateau called on at least 90% of the
                              # optimizer steps is stepped per batch (per epoch: one call in
                              # len(loader))
PLATEAU_PER_STEP_CUTS = 3     # [design] whole cuts made by it: three cuts (1000x at the default
                              # factor 0.1) in one run are noise in batch losses read as
                              # plateaus, not a plateau reached three times (core variants 7:
                              # patience 3, six cuts in 150 batches, 3e-3 to 3e-9)
ACCUMULATED = 2.0             # [design] at least 2 train-mode backward passes per watched
                              # step: gradients accumulated over micro-batches (the reports:
                              # 8 and 32)
MINI_BATCHES = 2.0            # [design] distinct rows seen at least twice the batch: mini-batch
                              # training (full-batch training steps once per epoch)


def plateau_cut_per_batch(ctx, state, n_steps):
    """(whole cuts, first rate, rate now) of a ReduceLROnPlateau stepped about once per
    optimizer step of mini-batch training that cut the rate PLATEAU_PER_STEP_CUTS times or
    more; else None."""
    if state.type != "ReduceLROnPlateau" or not state.lrs or not n_steps or \
            state.factor is None or not 0 < state.factor < 1 or \
            state.calls < PLATEAU_PER_STEP * n_steps:
        return None
    rows = observed_list(ctx, "batch_rows")
    if not rows or rows[-1][3] < MINI_BATCHES * rows[-1][1]:
        return None
    rates = highest_rates(ctx)
    first, now = (rates[0][1] if rates else 0.0), max(state.lrs)
    if not (first > 0 and now > 0):
        return None
    cuts = math.log(now / first) / math.log(state.factor)
    return (round(cuts), first, now) if cuts >= PLATEAU_PER_STEP_CUTS - 0.05 else None


def plateau_per_batch_finding(ctx, state, cuts, first, now, n_steps):
    poor = learning_poor(ctx)
    return Finding(
        code="SCHEDULE_LENGTH_MISMATCH", severity="warning" if poor else "info",
        where="scheduler (ReduceLROnPlateau)", step=ctx.first_step,
        message=f"A ReduceLROnPlateau was stepped {state.calls} times in {n_steps} optimizer "
                f"steps - once per batch, on mini-batches - and cut the learning rate {cuts} "
                f"times (from {first:.1e} to {now:.1e}): with a patience of {state.patience:g} "
                "calls it reads the batch losses' noise as plateaus"
                + (", and learning is poor." if poor else "."),
        evidence={"calls": state.calls, "optimizer_steps": n_steps, "cuts": cuts,
                  "first_lr": first, "lr_now": now, "patience": state.patience,
                  "factor": state.factor, "threshold": PLATEAU_PER_STEP_CUTS,
                  "learning_poor": bool(poor)},
        fix="Step ReduceLROnPlateau once per epoch, after validation, with the validation "
            "loss: scheduler.step(val_loss) outside the batch loop.")


def stepped_rarely(state, n_steps):
    """Optimizer steps per scheduler call when a schedule sized for the run's optimizer steps
    was stepped STEPPED_TOO_RARELY times less often or more; else None."""
    if not state.length or not n_steps or state.calls < 1:
        return None
    if abs(state.length - n_steps) > PLANNED_FOR_RUN * n_steps:
        return None
    stride = n_steps / state.calls
    return stride if stride >= STEPPED_TOO_RARELY else None


def sized_in_epoch_batches(state, n_steps):
    """(optimizer steps per call, whole epochs in the length) when a schedule stepped once
    every STEPPED_TOO_RARELY optimizer steps or more (once per epoch) has a length that is a
    whole number of those strides (T_max=len(train_loader), or a few epochs' batches: a
    length counted in batches), walked less than half of it, and left the rate at
    ENDED_HIGH of its base or above (it never annealed); else None. Real-bug batch 78:
    sthalles/SimCLR#8, T_max=len(train_loader) stepped after each epoch."""
    if not state.length or not n_steps or state.calls < 1 or not state.base_lrs \
            or not state.lrs:
        return None
    stride = n_steps / state.calls
    if stride < STEPPED_TOO_RARELY or state.calls > HALF_WALKED * state.length:
        return None
    epochs = round(state.length / stride)
    if epochs < 1 or abs(state.length - epochs * stride) > max(1.0, SAME_STRIDE * stride):
        return None
    base = max(state.base_lrs)
    return (stride, epochs) if base > 0 and max(state.lrs) >= ENDED_HIGH * base else None


def sized_in_micro_batches(ctx, state, n_steps):
    """Backward passes per optimizer step (k) when the run accumulated gradients over
    ACCUMULATED micro-batches or more, the schedule was stepped about once per optimizer step
    and its length is the run's backward passes - micro-batches - within PLANNED_FOR_RUN: it
    walked 1/k of its plan; else None."""
    observed = getattr(ctx.run, "observed", None)
    backwards = int(getattr(observed, "train_backward_total", 0) or 0)
    if not state.length or not n_steps or backwards < ACCUMULATED * n_steps:
        return None
    if abs(state.calls - n_steps) > PLANNED_FOR_RUN * n_steps or \
            abs(state.length - backwards) > PLANNED_FOR_RUN * backwards:
        return None
    return backwards / n_steps


def micro_batches_finding(state, accumulated, n_steps):
    base, end = max(state.base_lrs or (0.0,)), max(state.lrs or (0.0,))
    ended = f" and the rate ended at {end / base:.0%} of its base" if base > 0 else ""
    return Finding(
        code="SCHEDULE_LENGTH_MISMATCH", severity="warning", where="optimizer",
        message=f"The {state.type} is planned for {state.length} steps - the backward passes "
                f"(micro-batches) this run took - but was stepped once per optimizer step, "
                f"{state.calls} times: with {accumulated:.3g} micro-batches accumulated per "
                f"step it walked {state.calls / state.length:.0%} of its plan{ended}. Its "
                "warm-up and decay were counted in micro-batches.",
        evidence={"scheduler": state.type, "planned_steps": state.length,
                  "scheduler_calls": state.calls, "optimizer_steps": n_steps,
                  "micro_batches_per_step": accumulated, "lr_at_end": end, "base_lr": base,
                  "threshold": ACCUMULATED},
        fix="Count the schedule in optimizer steps: num_training_steps = len(train_loader) "
            "* epochs // accumulation_steps (the warm-up likewise), or step the scheduler "
            "after every micro-batch if it is meant per micro-batch.")


def epoch_batches_finding(state, stride, epochs, n_steps):
    return Finding(
        code="SCHEDULE_LENGTH_MISMATCH", severity="warning", where="optimizer",
        message=f"The {state.type} is planned for {state.length} steps - {epochs} x the "
                f"{stride:.3g} optimizer steps between its calls, a length counted in "
                f"batches - but was stepped once every {stride:.3g} optimizer steps, "
                f"{state.calls} times in {n_steps}: it walked {state.calls / state.length:.0%} "
                f"of its plan and the rate ended at {max(state.lrs) / max(state.base_lrs):.0%} "
                "of its base, never annealed.",
        evidence={"scheduler": state.type, "planned_steps": state.length,
                  "scheduler_calls": state.calls, "optimizer_steps": n_steps,
                  "steps_per_call": stride, "lr_at_end": max(state.lrs),
                  "base_lr": max(state.base_lrs), "threshold": STEPPED_TOO_RARELY},
        fix="Count the schedule in the unit it is stepped in: T_max=epochs when "
            "scheduler.step() is called once per epoch, or T_max=epochs * len(train_loader) "
            "and scheduler.step() after every optimizer.step().")


def ended_up_a_climb(state):
    """The rate at the end / the base rate when a periodic schedule was stepped PAST_LENGTH x
    its length or more and ended at ENDED_HIGH of its base rate or above, or was stepped
    FULL_CYCLES x its length or more (it climbed back to its peak at least once, wherever
    it ended); else None."""
    periodic = state.type in PERIODIC_TYPES or getattr(state, "periodic", None) is True
    if not periodic or not state.length or not state.base_lrs \
            or not state.lrs or state.calls < PAST_LENGTH * state.length:
        return None
    base = max(state.base_lrs)
    end = max(state.lrs)
    if base > 0 and state.calls >= FULL_CYCLES * state.length:
        return end / base             # it climbed back to its peak at least once
    return end / base if base > 0 and end >= ENDED_HIGH * base else None


def rarely_finding(state, stride, n_steps):
    return Finding(
        code="SCHEDULE_LENGTH_MISMATCH", severity="warning", where="optimizer",
        message=f"The {state.type} is planned for {state.length} steps - the "
                f"{n_steps} optimizer steps this run took - but was stepped {state.calls} "
                f"times, once every {stride:.3g} optimizer steps: a schedule counted in "
                "batches and stepped once per epoch walks only the start of its plan (a "
                "one-cycle or warm-up never reaches its peak rate).",
        evidence={"scheduler": state.type, "planned_steps": state.length,
                  "scheduler_calls": state.calls, "optimizer_steps": n_steps,
                  "steps_per_call": stride, "threshold": STEPPED_TOO_RARELY},
        fix="Call scheduler.step() after every optimizer.step() for a schedule sized in "
            "batches (OneCycleLR with steps_per_epoch, a warm-up in steps), or size it in "
            "epochs (epochs=..., steps_per_epoch=1; T_max=epochs) if it is stepped per epoch.")


def climb_finding(state, end_share):
    return Finding(
        code="SCHEDULE_LENGTH_MISMATCH", severity="warning", where="optimizer",
        message=f"The {state.type} has T_max={state.length} but was stepped {state.calls} "
                f"times ({state.calls / state.length:.3g} x T_max): the cosine is periodic, "
                "so past T_max the rate climbs back towards its peak"
                + (f", and the run ended at {end_share:.0%} of the base rate instead of "
                   "annealed." if end_share >= ENDED_HIGH else
                   f": it fell to its floor and climbed back {int(state.calls // (2 * state.length))}"
                   " time(s) - a schedule sized in epochs stepped every batch."),
        evidence={"scheduler": state.type, "t_max": state.length,
                  "scheduler_calls": state.calls, "lr_at_end": max(state.lrs),
                  "base_lr": max(state.base_lrs), "threshold": ENDED_HIGH},
        fix="Set T_max to the number of times the scheduler is stepped over the whole run "
            "(epochs x len(train_loader) when stepped per batch); for restarts on purpose use "
            "CosineAnnealingWarmRestarts and end the run at the end of a cycle.")


@rule(produces="SCHEDULE_LENGTH_MISMATCH",
      explains={"LR_GROWS_DURING_TRAINING", "LR_TOO_LOW", "LR_TOO_HIGH", "LOSS_OSCILLATING",
                "LOSS_PLATEAU"})
def schedule_length_mismatch(ctx):
    n_steps = getattr(ctx.run, "n_steps", 0) or 0
    for state in observed_list(ctx, "schedulers"):
        per_batch = plateau_cut_per_batch(ctx, state, n_steps)
        if per_batch is not None:
            return plateau_per_batch_finding(ctx, state, *per_batch, n_steps)
        stride = stepped_rarely(state, n_steps)
        if stride is not None:
            return rarely_finding(state, stride, n_steps)
        in_batches = sized_in_epoch_batches(state, n_steps)
        if in_batches is not None:
            return epoch_batches_finding(state, *in_batches, n_steps)
        accumulated = sized_in_micro_batches(ctx, state, n_steps)
        if accumulated is not None:
            return micro_batches_finding(state, accumulated, n_steps)
        end_share = ended_up_a_climb(state)
        if end_share is not None:
            return climb_finding(state, end_share)
    return None
