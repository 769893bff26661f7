"""LR_SCHEDULER_NEVER_STEPPED: a learning-rate scheduler was built for the watched optimizer
and its ``step()`` was never called, so the rate stayed where it started for the whole run.

Lightning steps the schedulers ``configure_optimizers`` returns under automatic
optimisation, and leaves them to the user under manual optimisation
(``self.lr_schedulers().step()``): a manual loop that forgets it trains at the starting
rate throughout (real-bug batch 144, so-vits-svc-fork#291: an ExponentialLR with gamma 0.7
an epoch left at 0.5 for 480 SGD steps, held-out accuracy 0.875 against 0.930). A
hand-written loop that builds a warm-up or a decay and never steps it does the same. The
loss falls and then rattles; nothing in the curve says a schedule was meant.

Read from ``run.observed.schedulers`` (``monitor/schedulers.py``): torch marks an optimizer
whose ``step`` a scheduler wrapped, so the schedulers are looked for at the monitor's close
even when the rate never moved, and a scheduler with no ``step()`` call after its
construction, in a run of ``UNSTEPPED_MIN_STEPS`` optimizer steps or more, is named. A
shorter run may end before the first epoch's scheduler step.
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule

UNSTEPPED_MIN_STEPS = 100     # [design] optimizer steps a run must have: a scheduler stepped
                              # once an epoch has been stepped by then in the loops of the
                              # real-bug cases (epochs of 10-75 batches); a short fine-tune
                              # that ends inside its first epoch is not judged


@rule(produces="LR_SCHEDULER_NEVER_STEPPED")
def scheduler_never_stepped(ctx):
    idle = [s for s in observed_list(ctx, "schedulers") if s.calls == 0]
    if not idle or ctx.run.n_steps < UNSTEPPED_MIN_STEPS:
        return None
    kinds = sorted({s.type for s in idle})
    rates = sorted({rate for s in idle for rate in s.lrs})
    return Finding(
        code="LR_SCHEDULER_NEVER_STEPPED", severity="warning", step=None,
        message=f"A learning-rate scheduler ({', '.join(kinds)}) was built for this optimizer "
                f"and never stepped in {ctx.run.n_steps} optimizer steps: the rate stayed at "
                f"its start ({', '.join(f'{r:.3g}' for r in rates[:4])}) for the whole run.",
        evidence={"schedulers": kinds, "calls": 0, "optimizer_steps": int(ctx.run.n_steps),
                  "rates": rates[:8], "min_steps": UNSTEPPED_MIN_STEPS},
        fix="Call scheduler.step() where the schedule counts (each optimizer step or each "
            "epoch); under Lightning's manual optimisation, self.lr_schedulers().step() in "
            "training_step or on_train_epoch_end.")
