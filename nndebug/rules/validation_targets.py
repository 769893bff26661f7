"""VALIDATION_TARGETS_TRUNCATED: a regression loss is handed fractional targets in training
and integer ones in validation: the validation loop converted the targets to integers
(``target.long()``, copied from a classification script) and truncated every score.

The validation loss then measures the distance to a staircase under the true scores: it
sits far above the training loss, barely moves, reads as overfitting, and drives early
stopping or the best checkpoint the wrong way. Public report: "Question for
eval_BreastPathQ_SSL.py line 123.", https://github.com/srinidhiPY/SSL_CR_Histo/issues/5
("`target = target.long()` It could translate the float tensor into int64, thus the
val_loss could be wrong"; the author: "it's an unintentional bug ... It should have been the
target.float()").

Read from ``run.observed.validation_target_kinds`` (``monitor/validation_targets.py``): the
training targets the loss capture kept are floats, at most TRAIN_WHOLE_MAX of them whole
numbers; every validation regression-loss call read got an integer tensor, or floats that
are all whole numbers. Classification (integer targets on both sides), regression on counts
or ratings (whole numbers on both sides) and regression done right stay silent.
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule

TRAIN_WHOLE_MAX = 0.5        # [design] share of whole numbers among the training targets at
                             # most: most of the scores the model is trained on are fractional
INTEGER_DTYPES = ("int8", "int16", "int32", "int64", "uint8", "long", "int",
                  "short")   # [design] integer dtypes, as the framework names them


@rule(produces="VALIDATION_TARGETS_TRUNCATED",
      explains={"OVERFITTING", "VALIDATION_NEVER_IMPROVED"})
def validation_targets_truncated(ctx):
    rows = observed_list(ctx, "validation_target_kinds")
    training = [r for r in rows if r[0] == "training" and r[4] > 0]
    validation = [r for r in rows if r[0] == "validation" and r[4] > 0]
    if not training or not validation:
        return None
    if any(r[3] in INTEGER_DTYPES or not r[5] <= TRAIN_WHOLE_MAX for r in training):
        return None
    if not all(r[3] in INTEGER_DTYPES or r[5] == 1.0 for r in validation):
        return None
    share = max(r[5] for r in training)
    first = validation[0]
    handed = f"an integer tensor ({first[3]})" if first[3] in INTEGER_DTYPES else \
        "whole numbers only"
    return Finding(
        code="VALIDATION_TARGETS_TRUNCATED", severity="warning", where="validation loss",
        step=first[1],
        message=f"The training loss is handed fractional targets (at most {share:.0%} of "
                f"them whole numbers), but every validation call of {first[2]} read is handed "
                f"{handed}: the validation loop converted the targets to integers (target.long(), "
                "copied from a classification loop) and truncated every score before the "
                "loss. The validation loss measures the distance to truncated scores: it stays "
                "high whatever the model learns, and early stopping or a best checkpoint "
                "chosen by it is wrong.",
        evidence={"training_whole_share": share, "validation_dtype": first[3],
                  "validation_calls": len(validation), "loss": first[2]},
        fix="Keep regression targets float in the validation loop as in training "
            "(target.float(), not target.long()).")
