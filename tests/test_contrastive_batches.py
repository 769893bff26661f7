"""A CLIP batch scored against itself (batches 121/135): its identical captions embed
identically, so their score columns are equal in every row - one score given twice, not
scores cut at a floor (DEAD_RELU's floored logits) - and its soft targets point at batch
positions, not token ids (PADDING_NOT_MASKED). A column stuck at one value in every row, a
dead unit, still counts as floored."""
import numpy as np

from nndebug.monitor.loss_capture import floored_scores
from nndebug.rules.soft_target_padding import soft_target_calls


def test_duplicate_columns_are_not_a_floor():
    rng = np.random.default_rng(0)
    scores = rng.normal(size=(32, 6))
    scores[:, 4] = scores[:, 1]          # two identical captions: equal in every row
    scores[:, 5] = scores[:, 1]
    rows, units = floored_scores(scores)
    assert rows == 0.0 and units == 0


def test_dead_units_stuck_at_zero_are_still_a_floor():
    rng = np.random.default_rng(0)
    scores = np.maximum(rng.normal(size=(32, 6)), 0.0)     # a ReLU on the class scores
    scores[:, 3] = 0.0
    scores[:, 5] = 0.0                   # two dead units: constant, equal columns
    rows, units = floored_scores(scores)
    assert rows == 1.0 and units >= 2


def test_square_batch_scores_are_not_read_for_padding():
    square = ("step", "cross_entropy", "mean", (64, 64), 0.0, 0.6, 1.0, 0.2)
    tokens = ("step", "cross_entropy", "mean", (64, 50), 0.0, 0.6, 1.0, 0.2)
    assert soft_target_calls([square]) == []
    assert len(soft_target_calls([tokens])) == 1
