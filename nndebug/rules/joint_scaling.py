"""SCALED_WITH_TARGET_STATISTICS: each window (or each batch) was scaled with statistics
taken over its inputs AND its targets, so the scaled inputs tell where the targets lie.

A forecaster's look-back min-max scaled together with the values it must predict
(philipperemy/n-beats#3), a batch standardised with its own mean and spread, the values to
predict included (arrigonialberto86/deepar#8), or a trajectory centred on the mean of its
observed AND future positions (Khrylx/AgentFormer#5, a centring alone): the input's scale
then carries the future - a look-back that stays below 1 says the maximum is still to come
- and training learns to read it. The loss looks better than a forecast can be, and the
model is worse than one trained honestly once it forecasts for real, scaled by what it can
know.

Reads ``run.observed.joint_scaling`` (``monitor/joint_scaling.py``): on the first training
batches, the share of rows (or the whole batch) where min 0 and max 1, or mean 0 and
standard deviation 1, or mean 0 alone, hold over inputs and targets together, over the
inputs alone and over the targets alone. The finding needs the statistic to hold together
on every row of every batch read, and on neither part alone, in at least ``MIN_BATCHES``
different batches: a scaler fitted on the inputs alone leaves the inputs canonical; one
fitted on a whole training series leaves no batch canonical; a batch seen again and again
(full-batch training on one scaled series) counts once.
"""
from ..findings import Finding
from .graph import rule

MIN_BATCHES = 2            # [design] different batches that must show it (the monitor reads
                           # up to the four whose targets the loss capture keeps)
EVERY_ROW = 1.0            # [design] a scaling over inputs and targets sets the statistic
                           # exactly on every row it is applied to; one row off is another
                           # scaling
LEVEL_WORDS = {"row": "each window (row)", "batch": "each batch as a whole"}
STATISTIC_WORDS = {"min-max": "minimum 0 and maximum 1", "mean-std": "mean 0 and standard "
                   "deviation 1", "mean": "mean 0 (a centring on their joint mean)"}


def _verdicts(rows):
    """{(level, statistic): (steps read, [(step, rows, inputs share, targets share)] of the
    different batches where it holds together only)}"""
    read, shown = {}, {}
    for step, level, statistic, counted, together, inputs, targets, key in rows:
        kind = (level, statistic)
        read.setdefault(kind, []).append(together)
        if together >= EVERY_ROW and inputs < EVERY_ROW and targets < EVERY_ROW:
            shown.setdefault(kind, {}).setdefault(key, (step, counted, inputs, targets))
    return read, shown


@rule(produces="SCALED_WITH_TARGET_STATISTICS")
def scaled_with_target_statistics(ctx):
    observed = getattr(ctx.run, "observed", None)
    rows = list(getattr(observed, "joint_scaling", None) or [])
    read, shown = _verdicts(rows)
    for (level, statistic), batches in shown.items():
        if len(batches) < MIN_BATCHES or min(read[(level, statistic)]) < EVERY_ROW:
            continue
        first = min(batches.values())
        step, counted, inputs, targets = first
        alone = (f"on {inputs:.0%} of them over the inputs alone" if level == "row"
                 else "not over the inputs alone")
        return Finding(
            code="SCALED_WITH_TARGET_STATISTICS", severity="warning", where="inputs",
            step=step,
            message=f"The training batches were scaled with statistics that include their "
                    f"targets: {STATISTIC_WORDS[statistic]} hold exactly over inputs and "
                    f"targets together for {LEVEL_WORDS[level]} ({len(batches)} different "
                    f"batches read, {counted} rows in the first), but {alone} and not over "
                    "the targets alone. The scaled inputs then carry where the targets lie "
                    "(a look-back that stays below its maximum says the maximum is still to "
                    "come): training learns to read that, and a real forecast, scaled by "
                    "what it can know, does not have it.",
            evidence={"level": level, "statistic": statistic, "batches": len(batches),
                      "rows": counted, "inputs_alone_share": inputs,
                      "targets_alone_share": targets},
            fix="Take the scaling statistics from the inputs only (the look-back of each "
                "window, or the training part of the series), and apply them to the targets; "
                "split a window into input and target before scaling it, never after.")
    return None
