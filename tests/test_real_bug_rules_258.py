"""Real-bug batch 258 (beginner multi-label classification): a binary cross-entropy called
as a function, ``F.binary_cross_entropy_with_logits(logits, y, weight=w)`` /
``F.binary_cross_entropy(p, y, weight=w)``, now has its per-label ``weight`` read into the
loss call's ``class_weights`` (``monitor/binary_loss_options.py``), as a
``BCEWithLogitsLoss(weight=w)`` module's always was, so POS_WEIGHT_PASSED_AS_WEIGHT
(``rules/bce_label_weights.py``) reads functional calls too.

Named on the planted case (open-mmlab/mmpretrain#434, negatives / positives per label given
to weight=; info there: the tagger still predicts some rare positives and its loss falls)
and on a variant after a sigmoid, and silent on the fixed twin (the same weights as
pos_weight=), on weight= together with pos_weight=, on per-row weights (one per sample, not
per label) and on importance weights near 1. The capture itself: one number per output
column is read, other shapes are not. Torch only: the capture reads torch's functional
calls.
"""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import class_weight_handed_to_bce_weight_not_pos_weight as case  # noqa: E402,E501
from benchmarks.real_bugs._common import batches  # noqa: E402
from benchmarks.real_bugs._digit_collages import collages, digit_at_cell  # noqa: E402
from nndebug.monitor.binary_loss_options import binary_function_options  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
AS_WEIGHT = "POS_WEIGHT_PASSED_AS_WEIGHT"


def _all_codes(mon):
    return {f.code: f.severity for f in mon.findings()}


def _negatives_over_positives(y):
    positives = y.sum(0).clamp(min=1)
    return (len(y) - positives) / positives


def _functional_run(loss_for, steps=250, sigmoid=False):
    """A 3x3 digit-collage tagger (40 labels "digit d in cell c", each positive in a few
    percent of the rows) trained with a functional binary cross-entropy."""
    torch.manual_seed(0)
    x, cells = collages(2000, grid=3, fill=0.3)
    y = digit_at_cell(cells)
    layers = [nn.Linear(64 * 9, 128), nn.ReLU(), nn.Linear(128, y.shape[1])]
    if sigmoid:
        layers.append(nn.Sigmoid())
    model = nn.Sequential(*layers)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = loss_for(y)
    with nd.watch(model, optimizer) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


# --- the planted case and its twin ------------------------------------------------------

def test_balancing_weights_given_to_the_functional_weight_are_named():
    mon = case.run()
    assert AS_WEIGHT in _all_codes(mon)
    assert mon.held_out_recall < 0.3


def test_the_same_weights_as_functional_pos_weight_are_silent():
    assert AS_WEIGHT not in _all_codes(case.run(fixed=True))


# --- variants and look-alikes -----------------------------------------------------------

def test_balancing_weights_given_to_functional_bce_after_a_sigmoid_are_named():
    def loss_for(y):
        w = _negatives_over_positives(y)
        return lambda p, t: F.binary_cross_entropy(p, t, w)       # weight by position
    assert AS_WEIGHT in _all_codes(_functional_run(loss_for, sigmoid=True))


def test_functional_weight_together_with_pos_weight_is_silent():
    def loss_for(y):
        w = _negatives_over_positives(y)
        return lambda z, t: F.binary_cross_entropy_with_logits(
            z, t, weight=torch.full_like(w, 2.0), pos_weight=w)
    assert AS_WEIGHT not in _all_codes(_functional_run(loss_for))


def test_per_row_weights_are_not_read_as_label_weights():
    def loss_for(y):
        def loss(z, t):
            rows = 1.0 + 10.0 * (t.sum(dim=1, keepdim=True) > 1).float()   # (N, 1)
            return F.binary_cross_entropy_with_logits(z, t, weight=rows)
        return loss
    assert AS_WEIGHT not in _all_codes(_functional_run(loss_for))


def test_functional_importance_weights_near_one_are_silent():
    def loss_for(y):
        g = torch.Generator().manual_seed(int(torch.randint(10**6, ())))
        w = 0.5 + torch.rand(y.shape[1], generator=g)
        return lambda z, t: F.binary_cross_entropy_with_logits(z, t, weight=w)
    assert AS_WEIGHT not in _all_codes(_functional_run(loss_for))


# --- the capture ------------------------------------------------------------------------

def test_one_weight_per_output_column_is_read():
    z, t = torch.zeros(8, 5), torch.zeros(8, 5)
    w = torch.arange(1.0, 6.0)
    for name in ("binary_cross_entropy_with_logits", "binary_cross_entropy"):
        assert binary_function_options(name, (z, t), {"weight": w})["class_weights"] == \
            (1.0, 2.0, 3.0, 4.0, 5.0)
        assert binary_function_options(name, (z, t, w), {})["class_weights"] == \
            (1.0, 2.0, 3.0, 4.0, 5.0)


def test_other_weight_shapes_are_not_read():
    z, t = torch.zeros(8, 5), torch.zeros(8, 5)
    for w in (torch.ones(8, 1), torch.ones(8, 5), torch.ones(3), torch.tensor(2.0)):
        assert "class_weights" not in binary_function_options(
            "binary_cross_entropy_with_logits", (z, t), {"weight": w})
    flat = torch.zeros(8)                                  # one output per row
    assert "class_weights" not in binary_function_options(
        "binary_cross_entropy_with_logits", (flat, flat), {"weight": torch.ones(8)})
    assert binary_function_options("mse_loss", (z, t), {"weight": torch.ones(5)}) == {}
