"""VALIDATION_ROWS_IN_TRAINING: a share of the rows the model is validated on are, value for
value, rows it trains on.

Rows repeated before the train/validation split fall on both sides of it: a rare class or
source oversampled by copying (``RandomOverSampler``, a dataset cycled up to the size of a
larger one, ``pd.concat([df, df[df.y == 1]] * k)``) and then split, a dataset with
duplicate records, one sample listed in two files. The validation loss then partly
measures memorisation, reads better than the model is, and every choice made on it
(the best epoch, early stopping, the hyperparameters) leans on rows it has seen. Public
reports: "Validation split can overlap training data after interleave oversampling",
https://github.com/MakazhanAlpamys/Soup/issues/680 ("Every validation row is in the
training set ... a suspiciously low val loss reads as success"); "Oversampling, the wrong
way", https://bgong.xyz/2023/04/26/oversampling-caution.

Read from ``run.observed.validation_row_matches`` (``monitor/validation_rows.py``): for each
kept evaluation batch, its distinct rows and those equal to a kept training row. Judged
only when the kept training rows repeat (the kept batches came round the training set, or
it holds copies), so that a training set larger than what was kept cannot pass for a leak
or hide one; an evaluation batch made almost wholly of training rows is a training-accuracy
pass (or a validation set that IS the training set, which no share can tell apart) and is
left alone.

Widened (real-bug batch 70): the validation set IS the training set - the validation
loader built from the training dataset ("Fix loading of validation data set",
https://github.com/JJGO/shrinkbench/pull/7). Every kept evaluation batch is a training
pass (WHOLE_SET_SHARE of its rows), none holds held-out rows, validation losses were
passed to ``mon.step``, and the kept evaluation rows outnumber the distinct training rows
kept: so the same training rows were evaluated again and again (one training-accuracy
pass over a training set larger than what was kept cannot do that, and a held-out pass
beside it shows as a batch that is not a training pass).
"""
from ..findings import Finding
from .graph import rule

MIN_ROW_VALUES = 16         # [design] values a row needs: a table of a few coarse columns
                            # repeats rows by nature (two passengers of one class, sex, port)
KEPT_ROWS_REPEATED_SHARE = 0.9   # [design] the kept training rows are judged when at most
                                 # this share of them are distinct: they came round to rows
                                 # already kept
TRAINING_PASS_SHARE = 0.8   # [design] an evaluation batch with at least this share of its rows
                            # in the training rows is a pass over training data, not validation
LEAK_SHARE = 0.05           # [design] share of the remaining evaluation rows found among the
                            # training rows: Fashion-MNIST's known duplicates are 0.1% of its
                            # test set, an oversampled source split afterwards 20-50%
MIN_MATCHED = 8             # [design] matched rows before a verdict


def leaked_rows(matches):
    """(rows matched, rows compared, distinct training rows, training rows kept) over the
    evaluation batches that are not training passes, when the share matched is LEAK_SHARE or
    more; else None."""
    if not matches:
        return None
    _, _, _, distinct, kept, values = matches[0]
    if values < MIN_ROW_VALUES or kept < 1 or distinct > KEPT_ROWS_REPEATED_SHARE * kept:
        return None
    held = [(rows, matched) for _, rows, matched, *_ in matches
            if rows and matched < TRAINING_PASS_SHARE * rows]
    rows = sum(r for r, _ in held)
    matched = sum(m for _, m in held)
    if matched < MIN_MATCHED or matched < LEAK_SHARE * rows:
        return None
    return matched, rows, distinct, kept


WHOLE_SET_MIN_BATCHES = 2    # [design] evaluation batches kept, at least (batch 70)
WHOLE_SET_MIN_VALIDATIONS = 2   # [design] validation losses passed, at least (batch 70)
WHOLE_SET_SHARE = 0.98       # [design] share of each evaluation batch's rows found among the
                             # training rows (batch 70): the training set re-read matches every
                             # row; a new split drawn per stage from one pool matched 82% of its
                             # rows to the next stage's training rows
                             # (benchmarks/real_bugs/validation_resplit_every_stage.py): rows
                             # trained on, but not the training set itself


def validation_is_training_set(matches, validations):
    """(rows evaluated, distinct training rows kept) when every row of every kept evaluation
    batch (WHOLE_SET_SHARE) is a training row, validation losses were passed, and the
    evaluated rows outnumber the distinct training rows kept (the same training rows
    evaluated again); else None."""
    if not matches or validations < WHOLE_SET_MIN_VALIDATIONS:
        return None
    _, _, _, distinct, kept, values = matches[0]
    if values < MIN_ROW_VALUES or kept < 1:
        return None
    batches = [(rows, matched) for _, rows, matched, *_ in matches if rows]
    if len(batches) < WHOLE_SET_MIN_BATCHES or \
            any(matched < WHOLE_SET_SHARE * rows for rows, matched in batches):
        return None
    rows = sum(r for r, _ in batches)
    if rows <= distinct or sum(m for _, m in batches) < MIN_MATCHED:
        return None
    return rows, distinct


def _whole_set_finding(rows, distinct, validations):
    return Finding(
        code="VALIDATION_ROWS_IN_TRAINING", severity="warning", where="validation", step=None,
        message=f"Every evaluation forward kept ({rows} rows) was of training rows, value for "
                f"value - more rows than the {distinct} distinct training rows kept, so the "
                f"same training rows were scored again and again - and {validations} "
                "validation losses were passed: the validation set is the training set (a "
                "validation loader built from the training dataset). The validation loss "
                "follows the training loss down and hides overfitting; a best epoch or early "
                "stop picked on it is picked on training data.",
        evidence={"evaluated_rows": rows, "distinct_training_rows": distinct,
                  "validations": validations, "whole_set": True},
        fix="Build the validation loader from the validation split (check that its dataset "
            "is not the training one), and keep the two splits' indices disjoint.")


@rule(produces="VALIDATION_ROWS_IN_TRAINING")
def validation_rows_in_training(ctx):
    matches = getattr(getattr(ctx.run, "observed", None), "validation_row_matches", None)
    found = leaked_rows(matches)
    if found is None:
        _, val = ctx.run.val_array()
        validations = int((val == val).sum())
        whole = validation_is_training_set(matches, validations)
        return None if whole is None else _whole_set_finding(*whole, validations)
    matched, rows, distinct, kept = found
    return Finding(
        code="VALIDATION_ROWS_IN_TRAINING", severity="warning", where="validation", step=None,
        message=f"{matched} of {rows} distinct validation rows ({matched / rows:.0%}) equal a "
                f"training row value for value (among {distinct} distinct training rows "
                "kept): rows were repeated before the train/validation split (an oversampled "
                "class or source, duplicate records), so the copies sit on both sides. The "
                "validation loss partly measures memorisation and reads better than the "
                "model is.",
        evidence={"matched_rows": matched, "validation_rows": rows,
                  "share": round(matched / rows, 3), "distinct_training_rows": distinct,
                  "training_rows_kept": kept, "leak_share": LEAK_SHARE},
        fix="Split first, then oversample (or augment) the training part only; drop "
            "duplicate records before splitting (df.drop_duplicates(), or split by a group "
            "key such as the sample's id).")
