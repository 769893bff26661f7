"""NORM_STATISTICS_NEVER_ESTIMATED: a network the training step runs besides the watched
model (a teacher, an EMA copy) normalises with batch-norm statistics that were never
estimated: eval mode, running mean 0 and variance 1, no batch tracked
(``run.observed.foreign_norm_statistics``, ``monitor/foreign_networks.py``).

In eval mode a batch norm divides by its running statistics. An exponential moving average
taken over ``model.parameters()`` leaves out the buffers, so a copy made of the untrained
student keeps the untrained statistics while its weights follow the trained ones: its
outputs (consistency targets, the averaged model that is evaluated) come from a network
whose normalisation does not match its weights. Public report: "Qustion about the update
method of ema_model", https://github.com/YU1ut/MixMatch-pytorch/issues/16 ("Mean-Teacher
only uses `model.parameters()` to update EMA model but `model.parameters()` do not contain
the stats of BatchNorm"; the asker's run "completely failed"); the same in
saltoricristiano/cosmix-uda#21. Read when findings are asked for, so a copy whose buffers
are copied after the first step is judged by what it holds at the end.
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule


@rule(produces="NORM_STATISTICS_NEVER_ESTIMATED")
def norm_statistics_never_estimated(ctx):
    rows = [r for r in observed_list(ctx, "foreign_norm_statistics") if r[3] and r[2] <= 0]
    if not rows:
        return None
    kinds = sorted({kind for kind, *_ in rows})
    return Finding(
        code="NORM_STATISTICS_NEVER_ESTIMATED", severity="warning", where=", ".join(kinds),
        step=None,
        message=f"{len(rows)} batch-norm layer(s) of a network the training step runs besides "
                f"the watched model ({', '.join(kinds)}, run in eval mode) still hold the "
                "statistics they were built with at the end of the run: running mean 0, "
                "variance 1, no batch tracked. That network (an EMA teacher, a copy of the "
                "model) normalises with statistics that never matched its weights, so what "
                "it outputs is wrong. An EMA over model.parameters() leaves the batch-norm "
                "buffers out.",
        evidence={"layers": len(rows), "types": kinds,
                  "features": [int(r[1]) for r in rows][:10]},
        fix="Update the buffers with the weights: iterate over the state_dict() (or also "
            "copy/average model.buffers()) in the EMA update, or run the copy in train mode "
            "on batches so that it estimates its own statistics.")
