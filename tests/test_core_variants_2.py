"""A fast subset of benchmarks/core_variants_2.py: each bug named, each fixed twin silent.

The second variant table re-writes the monitor's core diagnoses (dead ReLUs, vanishing /
exploding gradients, learning rate off, zero_grad misplaced, data problems) in torch and
minigrad; these are the one a rule was widened for, plus a few that passed as they came.
The whole table: python -m benchmarks.core_variants_2. Also the widened check alone.
"""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

from benchmarks import core_variants_2  # noqa: E402
from nndebug.probes.dependencies.alignment import probe_label_column  # noqa: E402

FIXED_BY_A_RULE_CHANGE = [
    "one_hot_labels_concatenated_to_features",     # TARGETS_IN_INPUTS, one-hot label columns
]
PASSED_AS_THEY_CAME = [
    "mlp_zero_grad_only_every_ten_steps",          # torch, GRADIENTS_ACCUMULATING
    "minigrad_adam_no_zero_grad",                   # minigrad, GRADIENTS_ACCUMULATING
    "mlp_sgd_rate_1e5",                             # LR_TOO_LOW
    "model_zero_grad_misses_loss_temperature",      # OPTIMIZER_PARAMS_NEVER_ZEROED
    "minigrad_labels_all_zero",                     # minigrad, TARGETS_ALL_ONE_CLASS
    "mlp_deep_relu_init_std_one",                   # EXPLODING_GRADIENTS
]


pytestmark = pytest.mark.usefixtures("one_torch_thread")   # conftest.py


@pytest.mark.parametrize("name", FIXED_BY_A_RULE_CHANGE + PASSED_AS_THEY_CAME)
def test_variant_named_and_twin_silent(name):
    variant = next(v for v in core_variants_2.VARIANTS if v.name == name)
    verdict, bug, twin, (first, last), _ = core_variants_2.score(variant)
    assert verdict == "detected", (name, verdict, bug)
    assert twin == [], (name, twin)
    assert last < first, (name, first, last)        # the twin learns


def _codes(x, y):
    return [f.code for f in probe_label_column(x, y)]


def test_label_one_hot_columns_in_the_features_are_named_scaled_or_not():
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 5, 64)
    x = rng.random((64, 12)).astype(np.float32)
    leaked = np.concatenate([x, np.eye(5, dtype=np.float32)[labels]], 1)
    assert _codes(leaked, labels) == ["TARGETS_IN_INPUTS"]
    standardised = (leaked - leaked.mean(0)) / (leaked.std(0) + 1e-12)
    assert _codes(standardised, labels) == ["TARGETS_IN_INPUTS"]


def test_other_one_hot_columns_and_binary_labels_stay_silent():
    rng = np.random.default_rng(1)
    labels = rng.integers(0, 5, 64)
    x = rng.random((64, 12)).astype(np.float32)
    category = np.eye(5, dtype=np.float32)[rng.integers(0, 5, 64)]   # another categorical
    assert _codes(np.concatenate([x, category], 1), labels) == []
    # only two classes: one two-valued column splitting the batch like the label (here its
    # complement, rescaled) may be chance, and is left alone
    binary = rng.integers(0, 2, 64)
    flag = (5.0 * (1 - binary) + 2.0).astype(np.float32)[:, None]
    assert _codes(np.concatenate([x, flag], 1), binary) == []
    # a one-hot of the label missing two classes' columns is not named
    partial = np.eye(5, dtype=np.float32)[labels][:, 2:]
    assert _codes(np.concatenate([x, partial], 1), labels) == []


def test_label_one_hot_with_its_first_column_dropped_is_named():
    rng = np.random.default_rng(2)
    labels = rng.integers(0, 5, 64)
    x = rng.random((64, 12)).astype(np.float32)
    dummies = np.eye(5, dtype=np.float32)[labels][:, 1:]       # get_dummies(drop_first=True)
    assert _codes(np.concatenate([x, dummies], 1), labels) == ["TARGETS_IN_INPUTS"]
