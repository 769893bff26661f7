"""Rules added for the twelfth batch of reproduced public bug reports
(``benchmarks/real_bugs/``, rules/frozen_norm_statistics.py): the bug planted, and its
healthy twins."""
import pytest

torch = pytest.importorskip("torch")

from synthetic import blobs  # noqa: E402

import nndebug as nd  # noqa: E402
from nndebug.rules.frozen_norm_statistics import FROZEN_MOMENTUM, frozen_momenta  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")


class _Setting:
    """A stand-in for the monitor's NormSetting (the helper reads three attributes)."""

    def __init__(self, layer, momentum, tracks_running_stats=True):
        self.layer, self.momentum = layer, momentum
        self.tracks_running_stats = tracks_running_stats


def _train_with_batchnorm(momentum, steps=80, frozen_in_eval=False, **norm_options):
    """Blobs classified by an MLP with a BatchNorm1d of this momentum; ``frozen_in_eval``:
    the batch norm is kept in eval mode while the rest trains. The findings by code."""
    torch.manual_seed(0)
    norm = torch.nn.BatchNorm1d(32, momentum=momentum, **norm_options)
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), norm, torch.nn.ReLU(),
                                torch.nn.Linear(32, 4))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    loss_fn = torch.nn.CrossEntropyLoss()
    with nd.watch(model, optimizer) as mon:
        for xb, yb in blobs(steps):
            model.train()
            if frozen_in_eval:
                norm.eval()
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return {f.code: f for f in mon.findings()}, norm


# --- BATCHNORM_STATISTICS_FROZEN ----------------------------------------------------------

def test_batchnorm_with_momentum_zero_is_named():
    found, norm = _train_with_batchnorm(0.0)
    # the premise: the running statistics really never moved from 0 and 1
    assert torch.equal(norm.running_mean, torch.zeros(32))
    assert torch.equal(norm.running_var, torch.ones(32))
    finding = found["BATCHNORM_STATISTICS_FROZEN"]
    assert finding.severity == "warning"
    assert finding.where == "1" and finding.evidence["layers"] == {"1": 0.0}


@pytest.mark.parametrize("momentum", [0.1, 0.01, None])
def test_batchnorm_whose_statistics_move_stays_silent(momentum):
    # the healthy twins: PyTorch's default, a TensorFlow port done right, and a
    # cumulative average
    found, norm = _train_with_batchnorm(momentum)
    assert not torch.equal(norm.running_mean, torch.zeros(32))
    assert "BATCHNORM_STATISTICS_FROZEN" not in found


def test_batchnorm_kept_in_eval_on_purpose_is_not_judged():
    # a frozen batch norm in eval() never updates its statistics whatever its momentum:
    # that is the right way to freeze them, not this bug
    found, _ = _train_with_batchnorm(0.0, frozen_in_eval=True)
    assert "BATCHNORM_STATISTICS_FROZEN" not in found


def test_batchnorm_without_running_statistics_is_not_judged():
    found, _ = _train_with_batchnorm(0.0, track_running_stats=False)
    assert "BATCHNORM_STATISTICS_FROZEN" not in found


def test_frozen_momenta_threshold():
    settings = [_Setting("a", 0.0), _Setting("b", FROZEN_MOMENTUM), _Setting("c", 1e-3),
                _Setting("d", None), _Setting("e", 0.0, tracks_running_stats=False),
                _Setting("f", 0.0)]
    trained = {"a", "b", "c", "d", "e"}            # "f" never normalised a training batch
    assert frozen_momenta(settings, trained) == {"a": 0.0, "b": FROZEN_MOMENTUM}
