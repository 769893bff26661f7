"""Regression errors written by hand (monitor/handwritten_errors.py) read by TARGETS_UNSCALED:
``((prediction - target) ** 2).mean()`` on raw targets is named like ``F.mse_loss`` on them,
a raw error summed with errors of unit-scale targets is a warning even once its head has
grown into the scale, and the same loops on standardised targets, or the same arithmetic
inside a model's forward, stay silent (real-bug batch 126, pitch_target_left_in_hertz)."""
import pytest

torch = pytest.importorskip("torch")

import nndebug as nd  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")


class TwoHeads(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.body = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.ReLU())
        self.level = torch.nn.Linear(32, 1)
        self.shape = torch.nn.Linear(32, 1)

    def forward(self, x):
        h = self.body(x)
        return self.level(h).squeeze(1), self.shape(h).squeeze(1)


def data(n=512, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 8, generator=g)
    level = 200 + 40 * x[:, 0] + 10 * x[:, 1]       # hundreds: raw units (hertz, prices)
    shape = torch.tanh(x[:, 2] - x[:, 3])            # unit scale
    return x, level, shape


def train(error, scaled, steps=150, seed=0):
    """Both heads trained by hand-written errors (``error(prediction, target)``), the level
    target raw or standardised."""
    torch.manual_seed(seed)
    x, level, shape = data(seed=seed)
    if scaled:
        level = (level - level.mean()) / level.std()
    model = TwoHeads()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer) as mon:
        for step in range(steps):
            rows = torch.randint(0, len(x), (64,))
            predicted_level, predicted_shape = model(x[rows])
            loss = error(predicted_level, level[rows]) + error(predicted_shape, shape[rows])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def squared(p, t):
    return ((p - t) ** 2).mean()


def squared_by_product(p, t):
    difference = t - p
    return (difference * difference).mean()


def absolute(p, t):
    return (p - t).abs().mean()


def codes(mon, severities=PROBLEMS):
    return {f.code for f in mon.findings() if f.severity in severities}


@pytest.mark.parametrize("error", [squared, squared_by_product, absolute])
def test_raw_error_beside_unit_scale_error_is_named(error):
    mon = train(error, scaled=False)
    found = [f for f in mon.findings() if f.code == "TARGETS_UNSCALED"]
    assert found and found[0].severity == "warning", mon.findings()
    evidence = found[0].evidence
    assert evidence["target_magnitude"] > 150
    assert evidence["other_errors_target_magnitude"] <= 1.0
    assert "written by hand" in evidence["loss"]
    kinds = {row[2] for row in mon.run.observed.handwritten_errors}
    assert kinds == {"absolute" if error is absolute else "squared"}


@pytest.mark.parametrize("error", [squared, squared_by_product, absolute])
def test_standardised_targets_stay_silent(error):
    mon = train(error, scaled=True)
    assert mon.run.observed.handwritten_errors, "the errors were seen"
    assert "TARGETS_UNSCALED" not in codes(mon, ("info", "warning", "error"))
    assert not codes(mon), mon.findings()


def test_one_raw_error_alone_is_judged_like_mse_loss():
    """One hand-written squared error on raw targets: the rows TARGETS_UNSCALED reads are the
    ones F.mse_loss gives it (first target in the hundreds, first prediction of order one)."""
    torch.manual_seed(0)
    x, level, _ = data()
    model = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-4)
    with nd.watch(model, optimizer) as mon:
        for step in range(60):
            loss = ((model(x[:64]).squeeze(1) - level[:64]) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    found = [f for f in mon.findings() if f.code == "TARGETS_UNSCALED"]
    assert found and found[0].severity == "warning", mon.findings()
    assert found[0].evidence["other_errors_target_magnitude"] is None


class RadialBasis(torch.nn.Module):
    """(x - centres) ** 2 inside the forward: a layer's arithmetic on raw inputs, not a loss."""

    def __init__(self):
        super().__init__()
        self.centres = torch.nn.Parameter(torch.randn(8) * 0.1)
        self.out = torch.nn.Linear(8, 1)

    def forward(self, x):
        return self.out(torch.exp(-((x - self.centres) ** 2) / 1e4)).squeeze(1)


def test_squared_difference_inside_forward_is_not_a_loss():
    torch.manual_seed(0)
    x = 200 + 40 * torch.randn(256, 8)          # raw inputs, the side without a gradient
    y = torch.tanh(x[:, 0] / 40 - 5)
    model = RadialBasis()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer) as mon:
        for step in range(40):
            loss = torch.nn.functional.mse_loss(model(x[:64]), y[:64])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert mon.run.observed.handwritten_errors == []
    assert "TARGETS_UNSCALED" not in codes(mon, ("info", "warning", "error"))
