"""Real-bug batch 216 (weight initialisation written by hand): INIT_SCALE_TOO_LARGE now reads
regression losses too. A regression loss has no chance level ln(C); the first loss call's
outputs at FIRST_OUTPUT_OVER_TARGET times the targets' largest magnitude (at least 1) stand
for it, beside the wide gains (jcjohnson/pytorch-examples#12: ``m.weight.data =
torch.randn(shape)`` in a two-layer ReLU regression). Planted: std-1 weights under MSELoss
and L1Loss, named; healthy: the default and He inits, raw targets in the hundreds under the
default init (outputs small against the targets), and wide weights tamed by a batch norm
before the output. Torch only: the loss-call capture the rule reads is the torch monitor's."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs._common import batches, regression  # noqa: E402
from nndebug.rules.init_scale import FIRST_OUTPUT_OVER_TARGET  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def _codes(mon):
    return {f.code for f in mon.findings() if f.severity in ("warning", "error")}


def _regressor(init=None, norm=False):
    torch.manual_seed(0)
    layers = [nn.Linear(64, 100), nn.ReLU(), nn.Linear(100, 1)]
    if norm:
        layers = [nn.Linear(64, 100), nn.BatchNorm1d(100), nn.ReLU(), nn.Linear(100, 1),
                  nn.BatchNorm1d(1)]
    model = nn.Sequential(*layers)
    if init is not None:
        with torch.no_grad():
            for layer in model:
                if isinstance(layer, nn.Linear):
                    init(layer.weight)
    return model


def _train(model, loss_fn=None, scale=1.0, steps=40, lr=1e-3):
    """Digits' standardised value (times ``scale``), Adam, the ordinary loop under watch."""
    x, y = regression()
    y = (y * scale).unsqueeze(1)
    loss_fn = loss_fn or nn.MSELoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    with nd.watch(model, optimizer) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_the_threshold_is_a_named_constant():
    assert FIRST_OUTPUT_OVER_TARGET == 10.0


@pytest.mark.parametrize("loss_fn", [nn.MSELoss, nn.L1Loss])
def test_unit_randn_weights_under_a_regression_loss_are_named(loss_fn):
    mon = _train(_regressor(lambda w: w.copy_(torch.randn(w.shape))), loss_fn())
    assert "INIT_SCALE_TOO_LARGE" in _codes(mon)


def test_the_default_init_is_silent():
    assert "INIT_SCALE_TOO_LARGE" not in _codes(_train(_regressor()))


def test_he_init_is_silent():
    mon = _train(_regressor(lambda w: nn.init.kaiming_normal_(w, nonlinearity="relu")))
    assert "INIT_SCALE_TOO_LARGE" not in _codes(mon)


def test_raw_targets_in_the_hundreds_are_silent():
    """Outputs far below the targets: TARGETS_UNSCALED's case, not an init scale."""
    assert "INIT_SCALE_TOO_LARGE" not in _codes(_train(_regressor(), scale=300.0))


def test_wide_weights_tamed_by_a_batch_norm_are_silent():
    mon = _train(_regressor(lambda w: w.copy_(torch.randn(w.shape)), norm=True))
    assert "INIT_SCALE_TOO_LARGE" not in _codes(mon)
