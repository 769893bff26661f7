"""Real-bug batch 238: LOSS_SHAPE_MISMATCH as a warning when one target per sample is copied
across that sample's K outputs - (32, 24) against (32, 1), a forecaster's head run on every
time step and flattened (discuss.pytorch.org/t/202270). A planted run and its healthy twin on
both frameworks; a constant target of shape (1,) against (32, 1) outputs stays a note."""
import warnings

import pytest

import nndebug as nd
from nndebug.rules.loss_side import shape_mismatch

torch = pytest.importorskip("torch")
nn = torch.nn

import minigrad as mg  # noqa: E402
import minigrad.nn as mnn  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")


def shape_findings(mon):
    return [f for f in mon.findings() if f.code == "LOSS_SHAPE_MISMATCH"]


def test_targets_copied_across_each_samples_outputs_is_its_own_case():
    copied = shape_mismatch((32, 24), (32, 1))
    assert copied["targets_copied"] and not copied["cross_pairs"]
    assert not copied["outputs_shared"]
    per_step = shape_mismatch((32, 12, 1), (32, 1, 1))
    assert per_step["targets_copied"]
    assert not shape_mismatch((32, 1), (1,))["targets_copied"]        # one constant target
    assert not shape_mismatch((1, 24), (1, 1))["targets_copied"]      # no batch to speak of
    assert not shape_mismatch((64, 1), (64,))["targets_copied"]       # cross pairs: an error


def series_windows(n=400, lags=12, seed=0):
    g = torch.Generator().manual_seed(seed)
    t = torch.arange(n + lags + 1, dtype=torch.float32)
    values = torch.sin(t / 3) + 0.1 * torch.randn(len(t), generator=g)
    x = torch.stack([values[i:i + lags] for i in range(n)])[:, :, None]
    y = torch.stack([values[i + lags] for i in range(n)])[:, None]
    return x, y


class Forecaster(nn.Module):
    def __init__(self, every_step):
        super().__init__()
        self.every_step = every_step
        self.lstm = nn.LSTM(1, 16, batch_first=True)
        self.fc = nn.Linear(16, 2 if every_step else 1)

    def forward(self, x):
        out, _ = self.lstm(x)
        if self.every_step:
            return self.fc(out).flatten(1)             # (batch, lags * 2)
        return self.fc(out[:, -1])                      # (batch, 1)


@pytest.mark.parametrize("every_step", [True, False])
def test_torch_head_flattened_over_steps_and_its_twin(every_step):
    torch.manual_seed(0)
    x, y = series_windows()
    model = Forecaster(every_step)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with nd.watch(model, optimizer) as mon:
            for step in range(40):
                rows = torch.randint(0, len(x), (32,))
                loss = nn.MSELoss()(model(x[rows]), y[rows])
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                mon.step(loss)
    found = shape_findings(mon)
    if every_step:
        assert found and found[0].severity == "warning", mon.findings()
        assert "24 times as many outputs as targets" in found[0].message
    else:
        assert not [f for f in mon.findings() if f.severity in PROBLEMS], mon.findings()


def test_torch_constant_target_of_one_value_stays_a_note():
    torch.manual_seed(0)
    x, _ = series_windows()
    model = nn.Sequential(nn.Flatten(), nn.Linear(12, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with nd.watch(model, optimizer) as mon:
            for step in range(20):
                out = model(x[step * 16:step * 16 + 32])
                loss = nn.functional.mse_loss(out, torch.zeros(1))
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                mon.step(loss)
    assert all(f.severity == "info" for f in shape_findings(mon)), mon.findings()


@pytest.mark.parametrize("wide", [True, False])
def test_minigrad_head_wider_than_the_target_and_its_twin(wide):
    x_t, y_t = series_windows()
    x = mg.tensor(x_t[:, :, 0].numpy())
    y = mg.tensor(y_t.numpy())
    mg.manual_seed(0)
    model = mnn.Sequential(mnn.Linear(12, 16), mnn.ReLU(), mnn.Linear(16, 6 if wide else 1))
    optimizer = mg.optim.SGD(model.parameters(), lr=0.05)
    mse = mnn.MSELoss()
    with nd.watch(model, optimizer, overhead=None) as mon:
        for i in range(40):
            j = (i * 32) % (len(x.data) - 32)
            optimizer.zero_grad()
            loss = mse(model(x[j:j + 32]), y[j:j + 32])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    found = shape_findings(mon)
    if wide:
        assert found and found[0].severity == "warning", mon.findings()
        assert found[0].evidence["targets_copied"]
    else:
        assert not found, mon.findings()
