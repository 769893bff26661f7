"""A derivative built with create_graph=True that nothing trains through (real-bug batch
336: a WGAN-GP critic whose gradient penalty is computed and never added to its loss,
LixiangHan/GANs-for-1D-Signal#7): LOSSES_NOT_BACKPROPAGATED from the noted steps' reach of
the derivative's results (``monitor/derivative_calls.py``, ``rules/discarded_losses.py``).
Planted: the benchmark's case, and an input-gradient regulariser on a digits classifier
computed beside the loss. Healthy: the case's twin, the regulariser added, a derivative
taken without create_graph (a saliency map for logging), and the saved-row reader."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import wgangp_penalty_computed_never_added as penalty_case  # noqa: E402,E501
from benchmarks.real_bugs._common import batches, classification, mlp  # noqa: E402
from nndebug.runfile import ROW_READERS  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
CODE = "LOSSES_NOT_BACKPROPAGATED"


def _found(mon):
    return {f.code: f for f in mon.findings() if f.severity in ("warning", "error")}


def test_the_penalty_never_added_is_named_and_the_twin_silent():
    found = _found(penalty_case.run())
    assert CODE in found and found[CODE].evidence["with_respect_to"] == ["inputs"]
    assert CODE not in _found(penalty_case.run(fixed=True))


def _train(mode, steps=12):
    """A digits MLP with an input-gradient norm regulariser (double backprop)."""
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer) as mon:
        for xb, yb in batches(x, y, steps, seed=0):
            xb = xb.clone().requires_grad_(True)
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            (slope,) = torch.autograd.grad(loss, xb, create_graph=mode != "saliency",
                                           retain_graph=True)
            regulariser = slope.pow(2).sum(1).mean()
            if mode == "added":
                loss = loss + 0.1 * regulariser
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_a_regulariser_computed_beside_the_loss_is_named():
    mon = _train("forgotten")
    assert CODE in _found(mon)
    assert all(reached == 0 for _, _, reached in mon.run.observed.derivative_reach)


@pytest.mark.parametrize("mode", ["added", "saliency"])
def test_a_regulariser_added_or_a_saliency_map_stays_silent(mode):
    mon = _train(mode)
    assert CODE not in _found(mon)
    if mode == "saliency":      # no graph asked for: nothing to train through
        assert mon.run.observed.derivative_reach == []


def test_saved_rows_read_back():
    assert ROW_READERS["derivative_reach"]([3, 2, 1]) == (3, 2, 1)
