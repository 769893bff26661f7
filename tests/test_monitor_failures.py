"""A statistic that fails costs one statistic, not the record, and never the training run.

The case from the field: a layer whose outputs are nearly constant (a Linear with weights
1e-7 and bias 1.02: its float32 outputs differ only by rounding) made NumPy's histogram
raise "Too many bins"; the monitor then stopped recording altogether.
"""
import numpy as np
import pytest

import nndebug as nd
from nndebug.monitor import statistics

torch = pytest.importorskip("torch")

import minigrad as mg  # noqa: E402
import minigrad.nn as mnn  # noqa: E402
import minigrad.optim as moptim  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
STEPS = 12


def nearly_constant_torch():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 3))
    with torch.no_grad():
        model[0].weight.fill_(1e-7)
        model[0].bias.fill_(1.02)
    model[0].requires_grad_(False)            # stays nearly constant for the whole run
    opt = torch.optim.SGD(model[2].parameters(), lr=0.05)

    def step(x, y):
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(torch.from_numpy(x)), torch.from_numpy(y))
        loss.backward()
        opt.step()
        return loss
    return model, opt, step


def nearly_constant_minigrad():
    mg.manual_seed(0)
    model = mnn.Sequential(mnn.Linear(4, 8), mnn.Tanh(), mnn.Linear(8, 3))
    model[0].weight.data[...] = 1e-7
    model[0].bias.data[...] = 1.02
    for p in model[0].parameters():
        p.requires_grad = False
    opt = moptim.SGD(model[2].parameters(), lr=0.05)

    def step(x, y):
        opt.zero_grad()
        loss = mnn.functional.cross_entropy(model(mg.tensor(x)), mg.tensor(y))
        loss.backward()
        opt.step()
        return loss
    return model, opt, step


def train(make, **watch_options):
    model, opt, step = make()
    rng = np.random.default_rng(0)
    with nd.watch(model, opt, overhead=None, histogram_every=1, **watch_options) as mon:
        for _ in range(STEPS):
            x = rng.normal(size=(16, 4)).astype(np.float32)
            y = rng.integers(0, 3, size=16)
            mon.step(step(x, y))
    return mon


@pytest.mark.parametrize("make", [nearly_constant_torch, nearly_constant_minigrad],
                         ids=["torch", "minigrad"])
def test_a_nearly_constant_layer_is_measured_like_any_other(make):
    mon = train(make)
    assert [r.step for r in mon.run.records] == list(range(STEPS))
    assert all("0" in histograms for _, histograms in mon.run.histograms)
    assert len(mon.run.histograms) == STEPS
    codes = [f.code for f in mon.findings()]
    assert "MONITOR_ERROR" not in codes, mon.report()


def test_histogram_of_values_that_differ_only_by_rounding():
    x = (np.float32(1.02) + np.float32(1e-7) * np.arange(-4, 5, dtype=np.float32))
    counts, edges = statistics.histogram(x)
    assert counts.sum() == x.size and edges[0] <= x.min() and edges[-1] >= x.max()
    tiny = np.array([1.0, np.nextafter(1.0, 2.0)])      # one ulp apart in float64
    counts, edges = statistics.histogram(tiny)
    assert counts.sum() == 2


def test_a_failing_device_statistic_costs_that_statistic_only(monkeypatch):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    mon = nd.watch(model, opt, overhead=None)

    def refuses(*args, **kwargs):
        raise RuntimeError("amax is not implemented for this tensor")
    monkeypatch.setattr(mon.adapter.xp, "amax", refuses)   # ReLU unit_max and absmax fail
    rng = np.random.default_rng(0)
    for _ in range(STEPS):
        x = torch.from_numpy(rng.normal(size=(16, 4)).astype(np.float32))
        y = torch.from_numpy(rng.integers(0, 3, size=16))
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        mon.step(loss)
    mon.close()
    assert len(mon.run.records) == STEPS                  # recording went on at every step
    last = mon.run.records[-1]
    assert set(last.activations["1"]) == {"mean", "std"}  # the ReLU lost its unit_max only
    assert np.all(np.isfinite(last.grad_norm))
    error = next(f for f in mon.findings() if f.code == "MONITOR_ERROR")
    assert error.severity == "info" and "absmax of layer 0" in error.message   # the first


def test_a_failing_host_statistic_costs_that_statistic_only(monkeypatch):
    def refuses(values, bins=40):
        raise ValueError("Too many bins for data range")
    monkeypatch.setattr(statistics, "histogram", refuses)
    mon = train(nearly_constant_torch)
    assert [r.step for r in mon.run.records] == list(range(STEPS))
    assert mon.run.histograms == [] and all("std" in r.activations["1"] for r in mon.run.records)
    error = next(f for f in mon.findings() if f.code == "MONITOR_ERROR")
    assert "histogram of layer" in error.message


def test_tensorboard_onto_an_existing_file_is_one_clear_error(tmp_path):
    torch = pytest.importorskip("torch")
    import nndebug as nd
    model = torch.nn.Linear(3, 2)
    path = tmp_path / "events.txt"
    path.write_text("not a folder")
    before = nd.adapt(model).hook_counts()
    with pytest.raises(ValueError, match="is a file"):
        nd.watch(model, tensorboard=str(path))
    assert nd.adapt(model).hook_counts() == before
