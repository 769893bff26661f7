"""Real-bug batch 62 (class imbalance and sampling): CLASS_WEIGHT_ZERO
(``rules/zero_class_weights.py``: a class the targets hold often has weight 0 and the model
stopped picking it), POS_WEIGHT_PASSED_AS_WEIGHT (``rules/bce_label_weights.py``: balancing
weights for rare positives given to a binary loss's weight= without pos_weight) and
CLASS_WEIGHTS_SHRINK_LOSS (``rules/shrunk_weighted_loss.py``: per-row losses multiplied by
1 / count weights before the mean, the stepped loss far below what the output allows).

Each is named on its planted case (IndicoDataSolutions/finetune#181,
dungnb1333/SIIM-COVID19-Detection-1st-Place#7, EthanRosenthal/spacecutter#16) and on a
variant, and silent on the fixed twins and on look-alikes that are fine: a small non-zero
weight on the commonest class, a zero weight on a class the targets never hold, a zero
weight on a class that is also the ignore_index; weight= given together with pos_weight=,
importance weights near 1, balancing weights on labels whose positives are common;
per-row weights normalised to a mean of 1, weights halving the loss, and shrunk weights
under Adam (which learns anyway: info, not a warning).
"""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import class_weights_passed_as_bce_weight as bce_case  # noqa: E402
from benchmarks.real_bugs import inverse_count_weights_shrink_loss as shrink_case  # noqa: E402
from benchmarks.real_bugs import log_class_weights_zero_for_frequent_class as zero_case  # noqa: E402,E501
from benchmarks.real_bugs._common import batches, mlp  # noqa: E402
from benchmarks.real_bugs._digit_collages import collages, digit_at_cell, digits_present  # noqa: E402,E501
from nndebug.rules.bce_label_weights import balancing_weights  # noqa: E402
from nndebug.rules.shrunk_weighted_loss import best_target_floor  # noqa: E402
from nndebug.rules.zero_class_weights import zero_weighted_classes  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
ZERO, AS_WEIGHT, SHRINK = ("CLASS_WEIGHT_ZERO", "POS_WEIGHT_PASSED_AS_WEIGHT",
                           "CLASS_WEIGHTS_SHRINK_LOSS")


def _codes(mon):
    return {f.code for f in mon.findings() if f.severity in ("warning", "error")}


def _all_codes(mon):
    return {f.code: f.severity for f in mon.findings()}


def _train(model, loss_fn, data, optimizer):
    with nd.watch(model, optimizer) as mon:
        for xb, yb in data:
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


# --- CLASS_WEIGHT_ZERO ------------------------------------------------------------------

def test_log_weights_that_zero_the_commonest_class_are_named():
    mon = zero_case.run()
    assert ZERO in _codes(mon)
    assert mon.frequent_class_recall == 0.0


def test_log_weights_plus_one_are_silent():
    assert ZERO not in _all_codes(zero_case.run(fixed=True))


def _long_tail_run(weights_for, steps=300, functional=False, ignore_index=-100):
    torch.manual_seed(1)
    x, y, _, _ = zero_case.long_tail(seed=1)
    weights = weights_for(torch.bincount(y, minlength=10).float())
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    if functional:
        def loss_fn(out, target):
            return F.cross_entropy(out, target, weight=weights, ignore_index=ignore_index)
    else:
        loss_fn = nn.CrossEntropyLoss(weight=weights, ignore_index=ignore_index)
    return _train(model, loss_fn, batches(x, y, steps, seed=1), optimizer)


def test_one_minus_share_weights_called_functionally_are_named():
    """Another formula that zeroes the commonest class ((max - count) / max), through
    F.cross_entropy(weight=...) inside the loss function."""
    mon = _long_tail_run(lambda counts: (counts.max() - counts) / counts.max() + 0.0,
                         functional=True)
    assert ZERO in _codes(mon)


def test_a_small_nonzero_weight_on_the_commonest_class_is_silent():
    def weights(counts):
        w = counts.max() / counts
        w[int(counts.argmax())] = 0.05
        return w
    assert ZERO not in _all_codes(_long_tail_run(weights))


def test_a_zero_weight_on_a_class_never_in_the_targets_is_silent():
    """Ten output columns, the 9s left out of the data: their weight is 0 and harmless."""
    torch.manual_seed(0)
    x, y, _, _ = zero_case.long_tail()
    keep = y != 9
    x, y = x[keep], y[keep]
    weights = torch.ones(10)
    weights[9] = 0.0
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    mon = _train(model, nn.CrossEntropyLoss(weight=weights), batches(x, y, 300), optimizer)
    assert ZERO not in _all_codes(mon)


def test_a_zero_weight_on_the_ignored_class_is_silent():
    """A 'void' class left out with ignore_index (and weight 0 as well)."""
    def weights(counts):
        w = torch.ones(10)
        w[0] = 0.0
        return w
    assert ZERO not in _all_codes(_long_tail_run(weights, ignore_index=0))


def test_zero_weighted_classes_reads_weights_against_shares():
    counts = [250, 120, 60, 30]
    assert zero_weighted_classes([0.0, 0.7, 1.4, 2.1], counts) == [(0, 250 / 460)]
    assert zero_weighted_classes([0.05, 0.7, 1.4, 2.1], counts) == []
    assert zero_weighted_classes([1.0, 1.0, 1.0, 0.0], [250, 120, 60, 0]) == []
    assert zero_weighted_classes([0.0, 1.0], [20, 30]) == []          # too few targets
    assert zero_weighted_classes([0.0, 0.7, 1.4, 2.1], counts, ignored=0) == []


# --- POS_WEIGHT_PASSED_AS_WEIGHT --------------------------------------------------------

def test_balancing_weights_passed_as_weight_are_named():
    mon = bce_case.run()
    assert AS_WEIGHT in _codes(mon)
    assert mon.recall < 0.1


def test_the_same_weights_as_pos_weight_are_silent():
    assert AS_WEIGHT not in _all_codes(bce_case.run(fixed=True))


def _sparse_run(loss_for, steps=250, sigmoid=False, fill=0.3, labels=digit_at_cell):
    torch.manual_seed(0)
    x, cells = collages(2000, grid=3, fill=fill)
    y = labels(cells)
    layers = [nn.Linear(64 * 9, 128), nn.ReLU(), nn.Linear(128, y.shape[1])]
    if sigmoid:
        layers.append(nn.Sigmoid())
    model = nn.Sequential(*layers)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    return _train(model, loss_for(y), batches(x, y, steps), optimizer)


def _negatives_over_positives(y):
    positives = y.sum(0).clamp(min=1)
    return (len(y) - positives) / positives


def test_balancing_weights_given_to_bce_after_a_sigmoid_are_named():
    mon = _sparse_run(lambda y: nn.BCELoss(weight=_negatives_over_positives(y)), sigmoid=True)
    assert AS_WEIGHT in _codes(mon)


def test_weight_together_with_pos_weight_is_silent():
    def loss_for(y):
        w = _negatives_over_positives(y)
        return nn.BCEWithLogitsLoss(weight=torch.ones_like(w) * 2.0, pos_weight=w)
    assert AS_WEIGHT not in _all_codes(_sparse_run(loss_for))


def test_importance_weights_near_one_are_silent():
    def loss_for(y):
        g = torch.Generator().manual_seed(0)
        return nn.BCEWithLogitsLoss(weight=0.5 + torch.rand(y.shape[1], generator=g))
    assert AS_WEIGHT not in _all_codes(_sparse_run(loss_for))


def test_balancing_weights_on_common_positives_are_silent():
    """Digits present in a 3x3 collage filled at 90%: most labels positive in half the rows
    or more; negatives / positives is at most about 1 there."""
    mon = _sparse_run(lambda y: nn.BCEWithLogitsLoss(weight=_negatives_over_positives(y)),
                      fill=0.9, labels=digits_present)
    assert AS_WEIGHT not in _all_codes(mon)


def test_balancing_weights_reads_rarity_and_magnitude():
    shares = np.full(40, 0.03)
    assert balancing_weights((1 - shares) / shares, shares) is not None
    assert balancing_weights(np.ones(40), shares) is None                     # no lift
    assert balancing_weights(np.full(40, 300.0), shares) is None              # not the formula
    common = np.full(40, 0.5)
    assert balancing_weights(np.full(40, 3.0), common) is None                # not rare
    spread = np.linspace(0.01, 0.2, 40)
    assert balancing_weights((1 - spread) / spread, spread) is not None
    assert balancing_weights(((1 - spread) / spread)[::-1], spread) is None   # the wrong way


# --- CLASS_WEIGHTS_SHRINK_LOSS ----------------------------------------------------------

def test_inverse_count_weights_multiplied_into_the_rows_are_named():
    mon = shrink_case.run()
    assert SHRINK in _codes(mon)


def test_normalised_row_weights_are_silent():
    assert SHRINK not in _all_codes(shrink_case.run(fixed=True))


def _row_weighted_run(scale, optimizer_for, steps=200, nll=False):
    torch.manual_seed(0)
    x, y, _, _ = shrink_case.long_tail()
    weights = scale(1.0 / torch.bincount(y, minlength=10).float(), y)

    def loss_fn(out, target):
        if nll:
            rows = F.nll_loss(F.log_softmax(out, dim=1), target, reduction="none")
        else:
            rows = F.cross_entropy(out, target, reduction="none")
        return (rows * weights[target]).mean()
    model = mlp()
    return _train(model, loss_fn, batches(x, y, steps), optimizer_for(model))


def _sgd(model):
    return torch.optim.SGD(model.parameters(), lr=0.1)


def test_inverse_count_weights_on_an_nll_loss_are_named():
    mon = _row_weighted_run(lambda w, y: w, _sgd, nll=True)
    assert SHRINK in _codes(mon)


def test_weights_that_halve_the_loss_are_silent():
    mon = _row_weighted_run(lambda w, y: 0.5 * w / w[y].mean(), _sgd)
    assert SHRINK not in _all_codes(mon)


def test_shrunk_weights_under_adam_are_info_only():
    """Adam rescales each step by the gradients' own size: a constant factor on the loss
    does not slow it, and the run learns; the reading is kept, as info."""
    mon = _row_weighted_run(lambda w, y: w,
                            lambda model: torch.optim.Adam(model.parameters(), lr=1e-3))
    assert SHRINK not in _codes(mon)
    assert _all_codes(mon).get(SHRINK) == "info"


def test_best_target_floor_is_the_mean_best_row_loss():
    scores = np.array([[2.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    best = np.log(np.exp(scores).sum(axis=1)) - scores.max(axis=1)
    assert best_target_floor(scores, "cross_entropy") == pytest.approx(best.mean())
    log_probs = np.log(np.array([[0.7, 0.2, 0.1], [0.5, 0.25, 0.25]]))
    assert best_target_floor(log_probs, "nll_loss") == pytest.approx(
        -(np.log(0.7) + np.log(0.5)) / 2)
