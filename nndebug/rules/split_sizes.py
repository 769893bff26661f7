"""VALIDATION_LARGER_THAN_TRAINING: the held-out split holds several times the rows of the
training split - the split's ratio read the wrong way round.

Split helpers disagree on what their number means: scikit-learn's ``test_size``, mlpack's
``data::Split`` ratio and Keras' ``validation_split`` give the HELD-OUT share, a hand-written
``n * fraction`` is often meant as the training share. Passing 0.8 or 0.9 where the other
meaning was meant trains on a tenth or a fifth of the data and validates on the rest. Nothing
looks wrong: the training loss falls to almost nothing, the validation loss settles at a
level that seems plausible, and nothing rises; the model is simply as good as a fifth of the
data allows. Public reports: "Small fix in previous FFN model.",
https://github.com/mlpack/examples/pull/8 (``RATIO = 0.9`` read as the test share: 150
training digits of 1497); "Fix
training/validation dataset split", https://github.com/andreariba/DeepCycle/pull/10 (958
batches to validation, 170 to training, where 17% was meant for validation).

Read from ``run.observed.split_sizes`` (``monitor/validation_rows.py``, from the rows
``monitor/window_overlap.py`` keeps once the run validates): the distinct training rows among
those kept, how many were kept, and the distinct evaluation rows that are no training row.
Judged only when the kept training rows came round the training set (CAME_ROUND times as many
kept as distinct: the distinct count is then the training set's size; augmented or streamed
rows never repeat and are not judged). The held-out count is a floor (at most the evaluation
rows kept), so the ratio it gives is too.

A run that trains on a small set on purpose (few-shot learning, a learning curve's first
point, an active-learning loop's first round) looks the same; the message says so, and the
fix is a check, not a change.
"""
from ..findings import Finding
from .graph import rule

CAME_ROUND = 2.0     # [design] kept training rows per distinct one, at least: the loop went
                     # round the training set, so the distinct rows are all of it
RATIO = 3.0          # [design] held-out rows per training row, at least: usual splits hold out
                     # 10-30% of the data (0.1-0.4 held-out rows per training row), a 50/50
                     # split 1; a held-out share of 0.8 or 0.9 read as the training share gives
                     # 4-9
MIN_HELD_OUT = 100   # [design] distinct held-out rows before a verdict


def inverted_split(sizes):
    """(distinct training rows, held-out rows) when the training rows came round and the
    held-out rows are RATIO times as many; else None."""
    if not sizes:
        return None
    distinct, kept, held_out, _ = sizes[0]
    if distinct < 1 or kept < CAME_ROUND * distinct:
        return None
    if held_out < MIN_HELD_OUT or held_out < RATIO * distinct:
        return None
    return distinct, held_out


@rule(produces="VALIDATION_LARGER_THAN_TRAINING", explains={"OVERFITTING"})
def validation_larger_than_training(ctx):
    """The model validates on several times as many rows as it trains on."""
    found = inverted_split(getattr(getattr(ctx.run, "observed", None), "split_sizes", None))
    if found is None:
        return None
    distinct, held_out = found
    return Finding(
        code="VALIDATION_LARGER_THAN_TRAINING", severity="warning", where="validation",
        step=None,
        message=f"The training loop goes round {distinct} distinct rows, while its evaluation "
                f"passes score at least {held_out} other rows ({held_out / distinct:.1f}x as "
                "many): the held-out split is larger than the training split. A split ratio "
                "read the wrong way round (test_size / a split helper's ratio is the "
                "HELD-OUT share; n * fraction the training share) trains on a fraction of the "
                "data: the training loss falls to almost nothing and the model is as good as "
                "that fraction allows. Ignore this if the training set is small on purpose "
                "(few-shot learning, a learning curve).",
        evidence={"distinct_training_rows": distinct, "held_out_rows_at_least": held_out,
                  "ratio_at_least": round(held_out / distinct, 2), "ratio_threshold": RATIO},
        fix="Check the split: print len(train) and len(validation). With scikit-learn's "
            "train_test_split, test_size is the held-out share (0.2, not 0.8); with a "
            "hand-written split, n_train = int(n * train_fraction).")
