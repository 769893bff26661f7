"""Rule added for the 113th batch of reproduced public bug reports (coordinate networks:
SIREN, Fourier features, radiance fields; ``benchmarks/real_bugs/``):
RANDOM_FEATURES_REDRAWN_EVERY_CALL (rules/random_projections.py,
monitor/random_projections.py), with the bug planted and healthy look-alikes that draw at
random in ``forward`` on purpose."""
import math

import pytest

torch = pytest.importorskip("torch")

from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

import nndebug as nd  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
CODE = "RANDOM_FEATURES_REDRAWN_EVERY_CALL"
FREQUENCIES, SCALE = 16, 3.0


def _problems(mon):
    return {f.code: f for f in mon.findings() if f.severity in PROBLEMS}


def _fit(model, steps=30):
    """Regress a 1-D wave from 2-D coordinates under watch."""
    torch.manual_seed(0)
    x = torch.rand(256, 2, generator=torch.Generator().manual_seed(1))
    y = torch.sin(6 * x[:, :1]) * torch.cos(4 * x[:, 1:])
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer) as mon:
        for _ in range(steps):
            optimizer.zero_grad()
            loss = F.mse_loss(model(x), y)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def _head():
    return nn.Sequential(nn.Linear(2 * FREQUENCIES, 32), nn.ReLU(), nn.Linear(32, 1))


class Redrawn(nn.Module):
    """The bug: Fourier features whose B is drawn inside forward."""

    def __init__(self):
        super().__init__()
        self.head = _head()

    def forward(self, x):
        B = torch.randn(2, FREQUENCIES) * SCALE
        projected = 2 * math.pi * x @ B
        return self.head(torch.cat([projected.cos(), projected.sin()], -1))


class RedrawnMatmul(Redrawn):
    """The bug written with torch.matmul and the draw inline."""

    def forward(self, x):
        projected = 2 * math.pi * torch.matmul(x, torch.randn(x.shape[-1], FREQUENCIES) * SCALE)
        return self.head(torch.cat([projected.cos(), projected.sin()], -1))


class Buffered(Redrawn):
    """Healthy: B drawn once, a buffer."""

    def __init__(self):
        super().__init__()
        self.register_buffer("B", torch.randn(2, FREQUENCIES) * SCALE)

    def forward(self, x):
        projected = 2 * math.pi * x @ self.B
        return self.head(torch.cat([projected.cos(), projected.sin()], -1))


class LazilyDrawn(Redrawn):
    """Healthy: B drawn on the first call only (inside an if)."""

    def __init__(self):
        super().__init__()
        self.B = None

    def forward(self, x):
        if self.B is None:
            self.B = torch.randn(2, FREQUENCIES) * SCALE
        projected = 2 * math.pi * x @ self.B
        return self.head(torch.cat([projected.cos(), projected.sin()], -1))


class BayesianLinear(nn.Module):
    """Healthy: Bayes-by-backprop, a weight drawn every call around learned mu and sigma."""

    def __init__(self, fan_in, fan_out):
        super().__init__()
        self.mu = nn.Parameter(torch.randn(fan_out, fan_in) * 0.1)
        self.rho = nn.Parameter(torch.full((fan_out, fan_in), -4.0))

    def forward(self, x):
        weight = self.mu + F.softplus(self.rho) * torch.randn(self.mu.shape[0], self.mu.shape[1])
        return F.linear(x, weight)


class FullCovarianceSample(nn.Module):
    """Healthy: a reparameterised sample z = mu + L @ eps, eps drawn per row."""

    def __init__(self):
        super().__init__()
        self.mu = nn.Linear(2, 4)
        self.scale_tril = nn.Parameter(torch.eye(4) * 0.1)
        self.head = nn.Linear(4, 1)

    def forward(self, x):
        batch = x.shape[0]
        eps = torch.randn(batch, 4)
        z = self.mu(x) + (self.scale_tril @ eps.T).T
        return self.head(z)


class ProjectedWhileTraining(Redrawn):
    """Healthy: a random projection as augmentation, only while training."""

    def forward(self, x):
        if self.training:
            x = x @ (torch.eye(2) + 0.01 * torch.randn(2, 2))
        projected = 2 * math.pi * x.repeat(1, FREQUENCIES // 2) * SCALE
        return self.head(torch.cat([projected.cos(), projected.sin()], -1))


@pytest.mark.parametrize("model", [Redrawn, RedrawnMatmul])
def test_random_features_drawn_in_forward_are_named(model):
    found = _problems(_fit(model()))
    assert CODE in found
    assert found[CODE].where == model.__name__
    assert found[CODE].evidence["count"] == 1


def test_the_mapping_inside_a_larger_model_is_named():
    class Wrapper(nn.Module):
        def __init__(self):
            super().__init__()
            self.field = Redrawn()

        def forward(self, x):
            return self.field(x)

    found = _problems(_fit(Wrapper()))
    assert found[CODE].where == "Redrawn"


@pytest.mark.parametrize("model", [Buffered, LazilyDrawn, FullCovarianceSample,
                                   ProjectedWhileTraining,
                                   lambda: nn.Sequential(BayesianLinear(2, 16), nn.ReLU(),
                                                         nn.Linear(16, 1))])
def test_deliberate_draws_stay_silent(model):
    assert CODE not in _problems(_fit(model()))


def test_the_observation_survives_a_saved_run(tmp_path):
    mon = _fit(Redrawn(), steps=5)
    path = tmp_path / "run.nndebug"
    mon.save(path)
    loaded = nd.load_run(path)
    assert [f.code for f in loaded.findings() if f.code == CODE] == [CODE]
