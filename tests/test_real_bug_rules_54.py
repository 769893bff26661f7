"""Real-bug batch 54 (multi-label classification): multi-hot rows given to
MultiLabelMarginLoss, which reads them as class ids (MULTI_HOT_TARGETS_READ_AS_INDICES); a
pos_weight computed as positives / negatives (CLASS_WEIGHTS_REVERSED, now on binary
losses); a sparse multi-label head that predicts no label for any row
(RARE_POSITIVES_NEVER_PREDICTED, now on multi-label heads); a softmax before
MultiLabelSoftMarginLoss (DOUBLE_SIGMOID, which now says softmax). The fixed twins stay
silent, and so do healthy look-alikes: index targets padded with -1, a pos_weight below 1
where the positives are the majority, a dense multi-label tagger, a multi-label head early
in its run, a rare-label head whose rows carry few labels, and a sigmoid output model."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

from benchmarks.real_bugs import label_columns_ordered_per_file as label_files  # noqa: E402
from benchmarks.real_bugs import multi_hot_targets_into_multilabel_margin_loss as margin  # noqa: E402
from benchmarks.real_bugs import multi_label_trained_with_cross_entropy as dense  # noqa: E402
from benchmarks.real_bugs import pos_weight_as_positives_over_negatives as upside_down  # noqa: E402
from benchmarks.real_bugs import softmax_outputs_into_multilabel_soft_margin_loss as softmax  # noqa: E402
from benchmarks.real_bugs import sparse_multi_labels_without_pos_weight as sparse  # noqa: E402
from benchmarks.real_bugs._common import batches, train_watched  # noqa: E402
from benchmarks.real_bugs._digit_collages import collages, digit_at_cell, digits_present  # noqa: E402
from nndebug.rules.pos_weights import pos_weight_shrinks_positives  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def _found(mon, code):
    return [f for f in mon.findings() if f.code == code and f.severity in PROBLEMS]


# --- the planted cases are named ---------------------------------------------------------

def test_multi_hot_rows_in_a_margin_loss_are_named():
    found = _found(margin.run(steps=40), "MULTI_HOT_TARGETS_READ_AS_INDICES")
    assert found and found[0].severity == "error"
    assert found[0].evidence["classes"] == 10


def test_the_functional_margin_loss_is_read_off_the_graph():
    torch.manual_seed(0)
    x, cells = collages(512)
    y = digits_present(cells).long()
    net = margin.model()
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
    mon = train_watched(net, optimizer, nn.functional.multilabel_margin_loss,
                        batches(x, y, 20))
    assert _found(mon, "MULTI_HOT_TARGETS_READ_AS_INDICES")


def test_a_pos_weight_upside_down_is_named():
    found = _found(upside_down.run(steps=40), "CLASS_WEIGHTS_REVERSED")
    assert found
    assert found[0].evidence["median_pos_weight"] < 0.5
    assert found[0].evidence["balanced_pos_weight"] > 2


def test_a_sparse_multi_label_head_predicting_nothing_is_named():
    found = _found(sparse.run(), "RARE_POSITIVES_NEVER_PREDICTED")
    assert found and found[0].evidence["labels"] == 90
    assert found[0].evidence["labels_per_row"] > 2


def test_a_softmax_before_a_sigmoid_loss_is_named_as_a_softmax():
    found = _found(softmax.run(steps=40), "DOUBLE_SIGMOID")
    assert found and found[0].evidence.get("rows_sum_to_one")
    assert "softmax" in found[0].message and "softmax" in found[0].fix


# --- the fixed twins and healthy look-alikes stay silent ----------------------------------

@pytest.mark.parametrize("case", [margin, upside_down, softmax, label_files])
def test_the_fixed_twins_are_silent(case):
    assert not _problems(case.run(fixed=True, steps=120))


def test_the_sparse_twin_with_pos_weight_is_silent():
    assert not _problems(sparse.run(fixed=True))


def test_a_pos_weight_below_one_for_majority_positives_is_silent():
    """Labels present in most images ("no digit 3 here" style): negatives / positives is
    below 1, and right."""
    torch.manual_seed(0)
    x, cells = collages(3000, fill=0.6)
    y = 1.0 - digits_present(cells)             # "digit d is absent": positive ~75%
    positives = y.sum(0)
    loss_fn = nn.BCEWithLogitsLoss(pos_weight=(len(y) - positives) / positives)
    net = nn.Sequential(nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 10))
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
    mon = train_watched(net, optimizer, loss_fn, batches(x, y, 150))
    assert all(w < 1 for w in loss_fn.pos_weight.tolist())
    assert not _problems(mon)


def test_a_dense_multi_label_tagger_is_silent():
    assert not _problems(dense.run(fixed=True))


def test_a_sparse_head_early_in_its_run_is_silent():
    """Before step 50 an unweighted sparse head may still predict nothing: not judged."""
    assert "RARE_POSITIVES_NEVER_PREDICTED" not in _problems(sparse.run(steps=45))


def test_a_head_whose_rows_carry_few_labels_is_not_judged():
    """One label in ten rows: a model may rightly answer 'none' for a whole batch."""
    torch.manual_seed(0)
    x, cells = collages(3000, grid=3, fill=0.3)
    y = digit_at_cell(cells)
    keep = torch.rand(len(y), generator=torch.Generator().manual_seed(1)) < 0.1
    y = y * keep[:, None]                        # ~0.3 labels per row
    net = nn.Sequential(nn.Linear(576, 128), nn.ReLU(), nn.Linear(128, 90))
    optimizer = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
    mon = train_watched(net, optimizer, nn.BCEWithLogitsLoss(), batches(x, y, 150))
    assert "RARE_POSITIVES_NEVER_PREDICTED" not in _problems(mon)


def test_a_sigmoid_output_keeps_the_sigmoid_message():
    torch.manual_seed(0)
    x, cells = collages(1000)
    y = digits_present(cells)
    net = nn.Sequential(nn.Linear(256, 64), nn.ReLU(), nn.Linear(64, 10), nn.Sigmoid())
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
    mon = train_watched(net, optimizer, nn.BCEWithLogitsLoss(), batches(x, y, 40))
    found = _found(mon, "DOUBLE_SIGMOID")
    assert found and not found[0].evidence.get("rows_sum_to_one")


# --- the pos_weight check alone ----------------------------------------------------------

def test_pos_weight_check_on_rare_and_common_labels():
    shares = [0.05, 0.1, 0.2, 0.3]
    upside = [s / (1 - s) for s in shares]
    right = [(1 - s) / s for s in shares]
    assert pos_weight_shrinks_positives(upside, shares)["rarest_label"] == 0
    assert pos_weight_shrinks_positives(right, shares) is None
    assert pos_weight_shrinks_positives([0.25], shares) is not None      # one for all
    assert pos_weight_shrinks_positives([1.0], shares) is None           # unweighted
    majority = [0.7, 0.8, 0.9, 0.95]
    assert pos_weight_shrinks_positives([(1 - s) / s for s in majority], majority) is None
