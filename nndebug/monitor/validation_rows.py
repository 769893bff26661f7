"""Validation rows that are training rows (VALIDATION_ROWS_IN_TRAINING,
``nndebug.rules.validation_rows``).

Rows repeated before the train/validation split land on both sides of it: a rare class or
source oversampled by copying its rows and then split, a dataset holding duplicate
records, the same samples listed in both files. The validation loss then scores rows the
model has trained on, partly measures memorisation, and says the model is better than it
is - the quiet direction, since a good validation score is rarely questioned.

Reads what ``window_overlap.WindowOverlap`` keeps once the run has validated (the first
float input of the training forwards, up to its TRAIN_ROWS rows, and of the evaluation
forwards, up to EVAL_ROWS, inputs of at most its MAX_ROW_VALUES values a row), on the
host, when findings are asked for: nothing more is kept or moved. For each kept evaluation
batch: its distinct rows with at least MIN_DISTINCT_VALUES values (constant or few-valued
rows repeat by nature) and how many of them equal a kept training row exactly,
with how many training rows were kept and how many of them were distinct (repeats show the
kept batches came round the training set once, or that it repeats rows: either way its
duplicates were seen). One row per evaluation batch, so that a training-accuracy pass
(every row a training row) and a clean validation pass in the same evaluation stay apart.
"""
import numpy as np

MIN_DISTINCT_VALUES = 6    # [design] distinct values a row needs to be compared: blank, binary
                           # or one-hot rows equal each other by nature (window_overlap's
                           # MIN_DISTINCT, for the same reason)


def compare_splits(train, evaluations):
    """Both readings from one pass over the kept rows (the distinct rows of the training set
    and of each evaluation batch found once): ``(matched_rows(...), split_sizes(...))``."""
    train = np.ascontiguousarray(train, dtype=np.float64)
    known = {row.tobytes() for row in np.unique(train, axis=0)}
    distinct = len(known)
    values = int(np.prod(train.shape[1:]))
    matches, held_out, kept = [], set(), 0
    for number, batch in enumerate(evaluations):
        batch = np.ascontiguousarray(batch, dtype=np.float64)
        if batch.shape[1:] != train.shape[1:]:
            continue
        kept += len(batch)
        rows = [row.tobytes() for row in np.unique(batch, axis=0)
                if len(np.unique(row)) >= MIN_DISTINCT_VALUES]
        matched = sum(row in known for row in rows)
        matches.append((number, len(rows), int(matched), distinct, len(train), values))
        held_out.update(row for row in rows if row not in known)
    return matches, [(distinct, len(train), len(held_out), kept)]


def matched_rows(train, evaluations):
    """``train``: the kept training rows, one 2-D or 3-D float array; ``evaluations``: the
    kept evaluation batches, each an array of the same row shape. Returns ``[(batch, rows
    compared, rows equal to a training row, distinct training rows, training rows kept,
    values per row)]`` (``run.observed.validation_row_matches``)."""
    return compare_splits(train, evaluations)[0]


def split_sizes(train, evaluations):
    """The sizes of the two splits as the kept rows show them (VALIDATION_LARGER_THAN_TRAINING,
    ``nndebug.rules.split_sizes``): ``[(distinct training rows, training rows kept, distinct
    held-out rows, evaluation rows kept)]``, one row (``run.observed.split_sizes``).

    Held-out rows are the distinct evaluation rows (of at least MIN_DISTINCT_VALUES values)
    equal to no kept training row, over all kept evaluation batches together: a second pass
    over a small validation set adds no row, and a training-accuracy pass adds none either.
    The distinct training rows are the training set's size only when the kept rows came round
    to rows already kept; the rule checks that from the two training counts."""
    return compare_splits(train, evaluations)[1]
