"""Real-bug batch 230 (beginner regression on raw tabular columns): UNNORMALIZED_INPUTS when
the only layer reading the raw inputs merely started with a tiny weight. A Linear(1, 1)
under torch.manual_seed(0) starts at w = -0.0075, so on raw temperatures in [-500, 500] its
first output looks unit-scale - as if the model had standardised its inputs itself - and the
rule stood down; within a few steps the weight grows to the inputs' scale. A model that
really standardises inside its forward keeps that layer's outputs small throughout and stays
silent. Both frameworks."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import minigrad as mg  # noqa: E402
import minigrad.nn as mnn  # noqa: E402
import nndebug as nd  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")

UNNORMALIZED = "UNNORMALIZED_INPUTS"
STEPS = 60


def _codes(mon):
    return {f.code for f in mon.findings() if f.severity in ("warning", "error")}


def _temperatures():
    rng = np.random.default_rng(0)
    c = rng.uniform(-500, 500, size=(640, 1)).astype(np.float32)
    f = (1.8 * c + 32 + rng.normal(0, 0.3, size=c.shape)).astype(np.float32)
    return c, f


class _TorchScaled(nn.Module):
    """Standardises its raw input with the training statistics, then one Linear."""

    def __init__(self, mean, std):
        super().__init__()
        self.register_buffer("mean", torch.tensor(mean))
        self.register_buffer("std", torch.tensor(std))
        self.fc = nn.Linear(1, 1)

    def forward(self, x):
        return self.fc((x - self.mean) / self.std)


class _MinigradScaled(mnn.Module):
    def __init__(self, mean, std):
        super().__init__()
        self.mean, self.std = float(mean), float(std)
        self.fc = mnn.Linear(1, 1)

    def forward(self, x):
        return self.fc((x - self.mean) / self.std)


def _torch_run(planted):
    c, f = _temperatures()
    torch.manual_seed(0)
    if planted:                     # raw inputs into a layer that starts tiny
        model = nn.Linear(1, 1)
        with torch.no_grad():
            model.weight.fill_(-0.0075)
        lr = 1e-5
    else:
        model, lr = _TorchScaled(c.mean(), c.std()), 0.1
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    with nd.watch(model, optimizer) as mon:
        for i in range(STEPS):
            j = (i * 64) % len(c)
            optimizer.zero_grad()
            loss = nn.functional.mse_loss(model(torch.from_numpy(c[j:j + 64])),
                                          torch.from_numpy(f[j:j + 64]))
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def _minigrad_run(planted):
    c, f = _temperatures()
    mg.manual_seed(0)
    if planted:
        model = mnn.Sequential(mnn.Linear(1, 1))
        model[0].weight.data[...] = -0.0075
        lr = 1e-5
    else:
        model, lr = _MinigradScaled(c.mean(), c.std()), 0.1
    optimizer = mg.optim.SGD(model.parameters(), lr=lr)
    with nd.watch(model, optimizer) as mon:
        for i in range(STEPS):
            j = (i * 64) % len(c)
            optimizer.zero_grad()
            diff = model(mg.tensor(c[j:j + 64])) - mg.tensor(f[j:j + 64])
            loss = (diff * diff).mean()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


@pytest.mark.parametrize("run", [_torch_run, _minigrad_run], ids=["torch", "minigrad"])
def test_raw_inputs_into_a_layer_that_started_tiny_are_named(run):
    assert UNNORMALIZED in _codes(run(planted=True))


@pytest.mark.parametrize("run", [_torch_run, _minigrad_run], ids=["torch", "minigrad"])
def test_a_model_that_standardises_its_inputs_itself_is_silent(run):
    assert UNNORMALIZED not in _codes(run(planted=False))
