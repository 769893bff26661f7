"""TARGETS_IN_INPUTS for a causal sequence model scored on the input it was just given
(``probes/dependencies/causal_copy.py``; quancore/social-lstm#11, real-bug batch 225's
``next_position_loss_against_current_position``).

Planted: a step-by-step LSTM whose outputs are scored against the inputs at the same
positions. Healthy, with the very same float targets: a per-frame autoencoder (each frame
from itself) and an LSTM autoencoder that encodes the window before it rebuilds it (each
output reads the whole window); and the LSTM scored on the next position.
"""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
COPY = "TARGETS_IN_INPUTS"


class StepLSTM(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(2, 16, batch_first=True)
        self.head = nn.Linear(16, 2)

    def forward(self, x):
        return self.head(self.lstm(x)[0])


class FrameAutoencoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.code = nn.Sequential(nn.Linear(2, 1), nn.Tanh())
        self.back = nn.Linear(1, 2)

    def forward(self, x):
        return self.back(self.code(x))


class WindowAutoencoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.LSTM(2, 8, batch_first=True)
        self.decoder = nn.LSTM(8, 8, batch_first=True)
        self.head = nn.Linear(8, 2)

    def forward(self, x):
        _, (h, _) = self.encoder(x)
        repeated = h[-1].unsqueeze(1).expand(-1, x.shape[1], -1)
        return self.head(self.decoder(repeated)[0])


def _walks(count, rng, length=12):
    steps = rng.normal(0, 0.1, size=(count, length, 2)) + np.array([0.1, 0.05])
    return torch.as_tensor(np.cumsum(steps, axis=1), dtype=torch.float32)


def _train(model, shifted=False, steps=40):
    rng = np.random.default_rng(0)
    torch.manual_seed(0)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer) as mon:
        for _ in range(steps):
            x = _walks(32, rng)
            out = model(x)
            loss = F.mse_loss(out[:, :-1], x[:, 1:]) if shifted else F.mse_loss(out, x)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return {f.code for f in mon.findings() if f.severity in ("warning", "error")}


def test_a_step_by_step_lstm_scored_on_its_own_inputs_is_named():
    torch.manual_seed(0)
    assert COPY in _train(StepLSTM())


def test_the_same_lstm_scored_on_the_next_position_is_not():
    torch.manual_seed(0)
    assert COPY not in _train(StepLSTM(), shifted=True)


@pytest.mark.parametrize("make", [FrameAutoencoder, WindowAutoencoder])
def test_autoencoders_of_frames_and_windows_are_not(make):
    torch.manual_seed(0)
    assert COPY not in _train(make())


def test_the_probe_reads_the_dependence_directly():
    rng = np.random.default_rng(1)
    x = _walks(8, rng)
    torch.manual_seed(0)
    step = nd.check_dependencies(StepLSTM(), x, x.clone())
    assert COPY in {f.code for f in step.findings}
    torch.manual_seed(0)
    window = nd.check_dependencies(WindowAutoencoder(), x, x.clone())
    assert COPY not in {f.code for f in window.findings}
    assert "copy through a causal model" in window.checked      # looked at, and cleared
    frames = nd.check_dependencies(FrameAutoencoder(), x, x.clone())
    assert "copy through a causal model" in frames.checked
    assert COPY not in {f.code for f in frames.findings}
