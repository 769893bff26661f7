"""Real-bug batch 45 ('loss not decreasing', 'accuracy stuck' reports whose answer found
the cause): a pair dataset that reads one file for both labels
(CONFLICTING_LABELS_ON_IDENTICAL_INPUTS) and plain SGD with a weight decay that erases the
weights in a few dozen steps (SGD_WEIGHT_DECAY_TOO_LARGE). The fixed twins stay silent, and
so do healthy variants: a batch holding the same image twice with the same label, rows that
share a blank or one-hot state and go on differently, SGD at usual decays, and Adam with a
large decay (COUPLED_WEIGHT_DECAY_TOO_LARGE's business, not this rule's)."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

from benchmarks.real_bugs import stego_path_resolves_to_cover as stego  # noqa: E402
from benchmarks.real_bugs import weight_decay_shrinks_regressor_to_constant as decayed  # noqa: E402,E501
from benchmarks.real_bugs._common import batches, classification, mlp, train_watched  # noqa: E402,E501
from nndebug.monitor.identical_input_rows import conflicting_rows  # noqa: E402
from nndebug.observed import OptimizerSetting  # noqa: E402
from nndebug.rules.weight_decay_time_constant import time_constant  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
TWINS = "CONFLICTING_LABELS_ON_IDENTICAL_INPUTS"
DECAY = "SGD_WEIGHT_DECAY_TOO_LARGE"


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


# --- one input, two labels --------------------------------------------------------------
def test_pairs_of_one_image_labelled_0_and_1_all_clash():
    rng = np.random.default_rng(0)
    images = rng.normal(size=(8, 1, 4, 4)).astype(np.float32)
    x = np.repeat(images, 2, axis=0)                 # each image twice, as cover and "stego"
    y = np.tile([0, 1], 8)
    assert conflicting_rows(x, y) == (8, 16)


def test_the_same_image_twice_with_one_label_does_not_clash():
    rng = np.random.default_rng(1)
    x = np.repeat(rng.normal(size=(8, 20)), 2, axis=0)
    y = np.repeat(np.arange(8), 2)
    assert conflicting_rows(x, y) == (8, 0)


def test_blank_and_one_hot_rows_are_discrete_states_not_twins():
    """Many rows start from one empty state, or share a current item, and go on to
    different targets: that is the data, not a pipeline reading one file twice."""
    blank = np.zeros((16, 20), np.float32)
    assert conflicting_rows(blank, np.arange(16) % 4)[1] == 0
    one_hot = np.eye(20, dtype=np.float32)[np.arange(16) % 2]     # two items, 8 rows each
    assert conflicting_rows(one_hot, np.arange(16) % 5)[1] == 0


def test_short_rows_and_small_batches_are_not_read():
    assert conflicting_rows(np.zeros((16, 4)), np.zeros(16)) is None     # a small table
    assert conflicting_rows(np.zeros((4, 64)), np.zeros(4)) is None      # four rows


def test_the_planted_pair_dataset_is_named_and_its_fix_is_silent():
    assert TWINS in _problems(stego.run())
    assert not _problems(stego.run(fixed=True))


def test_a_classifier_fed_each_image_twice_with_its_label_stays_silent():
    """Repeated samples (an oversampler, a batch padded by repeating) carry one label each."""
    torch.manual_seed(0)
    x, y = classification()
    doubled = ((torch.cat([xb, xb]), torch.cat([yb, yb])) for xb, yb in batches(x, y, 120, 32))
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    mon = train_watched(model, optimizer, nn.CrossEntropyLoss(), doubled)
    assert TWINS not in {f.code for f in mon.findings()}


# --- SGD's weight decay ------------------------------------------------------------------
def test_time_constant_of_usual_and_planted_settings():
    usual = OptimizerSetting(group=0, type="SGD", lr=0.1, weight_decay=5e-4, momentum=0.9)
    planted = OptimizerSetting(group=0, type="SGD", lr=0.01, weight_decay=0.5, momentum=0.9)
    assert time_constant(usual) == pytest.approx(2000)
    assert time_constant(planted) == pytest.approx(20)
    assert time_constant(OptimizerSetting(group=0, type="SGD", lr=0.1)) is None


def test_the_planted_decay_is_named_and_its_fix_is_silent():
    assert DECAY in _problems(decayed.run())
    assert not _problems(decayed.run(fixed=True))


@pytest.mark.parametrize("lr, decay, momentum", [(0.1, 5e-4, 0.9), (0.05, 1e-3, 0.0)])
def test_sgd_at_usual_decays_stays_silent(lr, decay, momentum):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum,
                                weight_decay=decay)
    mon = train_watched(model, optimizer, nn.CrossEntropyLoss(), batches(x, y, 200))
    assert DECAY not in {f.code for f in mon.findings()}


def test_adam_with_a_large_decay_is_left_to_the_adam_rule():
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, weight_decay=0.5)
    mon = train_watched(model, optimizer, nn.CrossEntropyLoss(), batches(x, y, 200))
    assert DECAY not in {f.code for f in mon.findings()}


def test_a_ten_class_batch_of_clashing_pairs_is_named_though_its_loss_falls():
    """Each digit also appears as a 'negative' read from its own file with another label:
    the loss still falls from ln 10 towards ln 2, the accuracy is capped at one half."""
    torch.manual_seed(0)
    x, y = classification()
    clashing = ((torch.cat([xb, xb]), torch.cat([yb, (yb + 1) % 10]))
                for xb, yb in batches(x, y, 60, 32))
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    mon = train_watched(model, optimizer, nn.CrossEntropyLoss(), clashing)
    assert TWINS in _problems(mon)
