"""Real-bug batch 244 (beginner U-Net and segmentation models): log-probabilities given to an
NLL loss that were normalised over a spatial axis instead of the classes -
``F.softmax(scores, dim=-1)`` on channels-first (N, C, H, W) scores, the default axis of a
channels-last framework, then the log into NLLLoss (ellisdg/3DUnetCNN#94). Named
CLASS_AXIS_SCRAMBLED (``rules/class_axis.py``) from the class-axis sums of exp(input) that
``monitor/log_prob_axes.py`` measures on the first calls. Fixed twin silent, and the healthy
look-alikes: log_softmax over dim 1, log(softmax(dim=1) + eps), a softmax over the batch
(LOG_PROBS_NORMALISED_OVER_BATCH's case, not this one), raw scores into NLLLoss
(NLL_ON_PROBABILITIES' case). torch and minigrad.
"""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import segmentation_softmax_over_width_axis as case  # noqa: E402
from benchmarks.real_bugs._common import classification  # noqa: E402
from nndebug.observed import LossCall  # noqa: E402
from nndebug.rules.class_axis import off_class_axis  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
CODE = "CLASS_AXIS_SCRAMBLED"
STEPS = 30
POSITIONS = 4                     # each sample's scores: (10 classes, 4 positions)


def _codes(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def _torch_run(log_probs_of, steps=STEPS):
    """A digits model whose (N, 10, 4) scores - 10 classes at 4 positions, the label repeated
    at each - become log-probabilities by ``log_probs_of`` and go to NLLLoss."""
    torch.manual_seed(0)
    x, y = classification()
    model = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10 * POSITIONS))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.NLLLoss()
    with nd.watch(model, opt) as mon:
        for step in range(steps):
            start = step * 48 % 1700
            xb, yb = x[start:start + 48], y[start:start + 48]
            scores = model(xb).view(-1, 10, POSITIONS)
            opt.zero_grad()
            loss = loss_fn(log_probs_of(scores), yb[:, None].expand(-1, POSITIONS))
            loss.backward()
            opt.step()
            mon.step(loss)
    return mon


def _minigrad_run(dim):
    import minigrad as mg
    import minigrad.nn.functional as MF
    from minigrad import nn as mnn
    x, y = classification()
    images, labels = x.numpy(), y.numpy()
    np.random.seed(0)
    model = mnn.Sequential(mnn.Linear(64, 32), mnn.ReLU(), mnn.Linear(32, 10 * POSITIONS))
    opt = mg.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = mnn.NLLLoss()
    with nd.watch(model, opt) as mon:
        for step in range(STEPS):
            start = step * 48 % 1700
            xb = mg.Tensor(images[start:start + 48])
            yb = mg.Tensor(np.repeat(labels[start:start + 48, None], POSITIONS, 1))
            opt.zero_grad()
            scores = model(xb).reshape(-1, 10, POSITIONS)
            loss = loss_fn(MF.log_softmax(scores, dim=dim), yb)
            loss.backward()
            opt.step()
            mon.step(loss)
    return mon


# --- the planted case and its twin ----------------------------------------------------------

def test_planted_case_is_named_and_its_twin_is_silent():
    found = [f for f in case.run(steps=40).findings() if f.code == CODE]
    assert found and found[0].severity == "warning"
    assert found[0].evidence["class_mass_error"] > 0.05
    assert "dim 1" in found[0].message
    assert CODE not in _codes(case.run(fixed=True, steps=40))


# --- variants and look-alikes (torch) ---------------------------------------------------------

def test_log_softmax_over_the_last_axis_is_named():
    assert CODE in _codes(_torch_run(lambda s: F.log_softmax(s, dim=-1)))


@pytest.mark.parametrize("make", [
    lambda s: F.log_softmax(s, dim=1),
    lambda s: torch.log(F.softmax(s, dim=1) + 1e-7),
], ids=["log_softmax_dim1", "log_of_softmax_plus_eps"])
def test_log_probabilities_over_the_classes_are_silent(make):
    mon = _torch_run(make)
    assert CODE not in _codes(mon)
    measured = [c for c in mon.run.observed.loss_calls if c.class_mass_error is not None]
    assert measured and all(c.class_mass_error < 1e-3 for c in measured)


def test_softmax_over_the_batch_is_left_to_its_own_code():
    codes = _codes(_torch_run(lambda s: F.log_softmax(s, dim=0)))
    assert "LOG_PROBS_NORMALISED_OVER_BATCH" in codes and CODE not in codes


def test_raw_scores_are_left_to_nll_on_probabilities():
    codes = _codes(_torch_run(lambda s: s))
    assert CODE not in codes


# --- the check alone ------------------------------------------------------------------------

def _call(class_error, batch_error=0.5, high=-0.01, shape=(16, 3, 16, 16)):
    return LossCall(step=0, loss="NLLLoss", output_shape=shape, target_shape=None,
                    output_min=-9.0, output_max=high, class_mass_error=class_error,
                    batch_mass_error=batch_error)


def test_off_class_axis_alone():
    assert off_class_axis(_call(0.8)) is True
    assert off_class_axis(_call(1e-6)) is False            # normalised over the classes
    assert off_class_axis(_call(0.8, batch_error=1e-7)) is False   # over the batch
    assert off_class_axis(_call(0.8, high=2.0)) is False   # scores, not log-probabilities
    assert off_class_axis(_call(0.8, shape=(16, 3))) is None   # 2-D: not a spatial map
    assert off_class_axis(_call(None)) is None             # not measured


# --- minigrad ---------------------------------------------------------------------------------

@pytest.mark.parametrize("dim", [1, -1])
def test_minigrad_log_softmax_over_a_position_axis_is_named(dim):
    assert (CODE in _codes(_minigrad_run(dim))) == (dim == -1)
