"""A fast subset of benchmarks/core_variants.py: each bug named, each fixed twin silent.

The variants re-write issue #10's capabilities the way other users would (another loss
class, model kind, optimizer, batch layout); these are the ones a rule had to be widened
for, plus a few that passed as they came. The whole table: python -m benchmarks.core_variants.
Also the widened checks alone, on hand-made data.
"""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

from benchmarks import core_variants  # noqa: E402
from nndebug.probes.dependencies.alignment import measure_offset, probe_label_column  # noqa: E402
from nndebug.rules.structure import occasional_tiny_batches  # noqa: E402

FIXED_BY_A_RULE_CHANGE = [
    "bn_last_batch_of_two_each_epoch",                  # BATCHNORM_TINY_BATCH, any step
    "transformer_lm_softmax_before_cross_entropy",      # DOUBLE_SOFTMAX on (B, V, T)
    "bce_loss_on_sigmoid_of_sigmoid_outputs",           # DOUBLE_SIGMOID into BCELoss
    "label_left_in_feature_columns",                    # TARGETS_IN_INPUTS, rescaled
    "bidirectional_lstm_multivariate_forecaster",       # FUTURE_LEAK, multivariate series
]
PASSED_AS_THEY_CAME = [
    "mse_n1_against_n_adam",
    "hidden_layers_in_plain_list_sgd",
    "random_backbone_frozen_adam",
    "sgd_regression_blows_up_near_step_70",
]


pytestmark = pytest.mark.usefixtures("one_torch_thread")   # conftest.py


@pytest.mark.parametrize("name", FIXED_BY_A_RULE_CHANGE + PASSED_AS_THEY_CAME)
def test_variant_named_and_twin_silent(name):
    variant = next(v for v in core_variants.VARIANTS if v.name == name)
    verdict, bug, twin, (first, last), _ = core_variants.score(variant)
    assert verdict == "detected", (name, verdict, bug)
    assert twin == [], (name, twin)
    assert last < first, (name, first, last)        # the twin learns


def test_occasional_tiny_batches_counts_steps_of_one_or_two_samples():
    rows = [(55, "1", 2, 2), (111, "1", 2, 2), (167, "1", 2, 2)]
    assert occasional_tiny_batches(rows) == {"1": (2, 2, 55, 3)}
    assert occasional_tiny_batches([(55, "1", 3, 3)]) == {}      # 3 samples: not kept
    assert occasional_tiny_batches([]) == {}


def test_rescaled_class_label_column_is_named_but_not_a_binary_or_a_regression_one():
    rng = np.random.default_rng(0)
    x = rng.random((64, 5)).astype(np.float32)
    labels = rng.integers(0, 10, 64)
    leaked = x.copy()
    leaked[:, 3] = ((labels - labels.mean()) / labels.std()).astype(np.float32)
    found = probe_label_column(leaked, labels)
    assert [f.code for f in found] == ["TARGETS_IN_INPUTS"]
    assert found[0].evidence["columns"] == [3]
    assert probe_label_column(x, labels) == []                    # no such column
    binary = labels % 2
    leaked[:, 3] = binary * 2.0 - 1.0
    assert probe_label_column(leaked, binary) == []               # two classes: not judged
    value = rng.random(64)
    leaked[:, 3] = (3 * value + 1).astype(np.float32)
    assert probe_label_column(leaked, value) == []                # y = a x + b: a toy fit


def test_offset_measured_on_the_feature_column_a_forecaster_predicts():
    rng = np.random.default_rng(1)
    series = rng.standard_normal((16, 11, 3)).astype(np.float32)
    x, y = series[:, :-1], series[:, 1:, 2]
    assert measure_offset(x, y)[0] == 1
    assert measure_offset(x, rng.standard_normal((16, 10)).astype(np.float32)) is None
