"""Real-bug batch 138 (biosignal classification): INPUT_CHANNELS_ON_DIFFERENT_SCALES. EEG
channels in volts standardised together with channels in other units reach a Conv1d as
offsets that barely move; named (a warning when learning is poor). Each channel standardised
on its own stays silent, and so do a table's mostly-zero columns (one-hot codes) beside dense
ones; a (batch, time, features) input into an LSTM is read along its last axis."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

import nndebug as nd  # noqa: E402
from nndebug.monitor.channel_scales import channel_axis, channel_scales  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
F = torch.nn.functional


def recording(n=512, channels=6, length=48, seed=0):
    """Channels 0-3 'EEG' in volts (1e-5) whose rhythm tells the class; 4-5 'motion' in
    units of one, noise."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    t = np.arange(length) / length
    eeg = 1e-5 * (np.sin(2 * np.pi * (3 + 4 * y)[:, None, None] * t + rng.uniform(
        0, 6.3, (n, 4, 1))) + 0.3 * rng.normal(size=(n, 4, length)))
    motion = rng.normal(size=(n, channels - 4, length))
    return np.concatenate([eeg, motion], axis=1), y


def standardise(x, together):
    if together:
        return (x - x.mean()) / x.std()
    mean = x.mean(axis=(0, 2), keepdims=True)
    std = x.std(axis=(0, 2), keepdims=True)
    return (x - mean) / std


def train(together, steps=120):
    raw, y = recording()
    x = torch.tensor(standardise(raw, together), dtype=torch.float32)
    y = torch.tensor(y)
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Conv1d(6, 16, 5, padding=2), torch.nn.ReLU(),
                                torch.nn.AdaptiveAvgPool1d(1), torch.nn.Flatten(),
                                torch.nn.Linear(16, 2))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer) as mon:
        for step in range(steps):
            rows = torch.randint(0, len(x), (32,))
            loss = F.cross_entropy(model(x[rows]), y[rows])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return {f.code: f for f in mon.findings()}


def test_channels_standardised_together_are_named():
    found = train(together=True)
    finding = found.get("INPUT_CHANNELS_ON_DIFFERENT_SCALES")
    assert finding is not None and finding.severity == "warning", found
    assert finding.evidence["small_channels"] == [0, 1, 2, 3]
    assert finding.evidence["axis"] == 1


def test_each_channel_standardised_on_its_own_is_silent():
    found = train(together=False)
    assert "INPUT_CHANNELS_ON_DIFFERENT_SCALES" not in found
    assert not [f for f in found.values() if f.severity in ("warning", "error")], found


def test_mostly_zero_columns_do_not_count():
    rng = np.random.default_rng(0)
    dense = rng.normal(size=(256, 6))
    one_hot = np.eye(10)[rng.integers(0, 10, 256)] * 1e-4     # tiny, but mostly zero
    spread, nonzero = channel_scales(np.concatenate([dense, one_hot], axis=1), 1)
    assert min(nonzero[6:]) < 0.2 and min(nonzero[:6]) == 1.0


def test_the_channel_axis_follows_the_first_layer():
    conv = torch.nn.Sequential(torch.nn.Conv1d(3, 4, 3))
    lstm = torch.nn.LSTM(3, 4, batch_first=True)
    assert channel_axis(conv, 3) == 1 and channel_axis(lstm, 3) == 2
    assert channel_axis(conv, 2) == 1 and channel_axis(conv, 4) is None
