"""Small layer outputs measured together at the end of the forward pass (monitor/hooks.py):
the records must hold exactly what measuring each output in its hook gives, also when a
later in-place operation changes an output (ReLU(inplace=True), ``out += identity``), when
that starts only late in the run, and when a layer is called twice."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import nndebug as nd
from nndebug.adapters.minigrad_adapter import NumpyNamespace
from nndebug.monitor import hooks, statistics

torch = pytest.importorskip("torch")
from nndebug.adapters.torch_adapter import TorchNamespace  # noqa: E402

nn = torch.nn
pytestmark = pytest.mark.usefixtures("one_torch_thread")
STEPS = 12


# --- the batched statistics against the one-by-one ones ----------------------------------
@settings(max_examples=40, deadline=None)
@given(count=st.integers(1, 5), batch=st.integers(1, 6), units=st.integers(1, 7),
       extra=st.sampled_from([(), (3,), (2, 2)]), seed=st.integers(0, 2**16),
       space=st.sampled_from(["numpy", "torch"]))
def test_batched_light_stats_equal_the_one_by_one_ones(count, batch, units, extra, seed, space):
    rng = np.random.default_rng(seed)
    arrays = [rng.normal(loc=rng.normal() * 3, size=(batch, units) + extra).astype(np.float32)
              for _ in range(count)]
    relu = [bool(rng.integers(2)) and batch > 1 for _ in range(count)]
    xp = NumpyNamespace() if space == "numpy" else TorchNamespace()
    make = np.asarray if space == "numpy" else torch.from_numpy
    outputs = [make(a) for a in arrays]
    batched = statistics.batched_light_stats(xp, outputs, relu)
    for out, is_relu, got in zip(outputs, relu, batched):
        expected = statistics.layer_stats(xp, out, "relu" if is_relu else "linear")
        assert [name for name, _ in got] == [name for name, _ in expected]
        for (_, a), (_, b) in zip(got, expected):
            assert np.allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-6)


# --- whole runs: measured late against measured at once ----------------------------------
class ResidualBlock(nn.Module):
    """A ResNet-style block: the second linear layer's output gets the skip added in place,
    then an in-place ReLU."""

    def __init__(self, width):
        super().__init__()
        self.fc1, self.act, self.fc2 = nn.Linear(width, width), nn.ReLU(), nn.Linear(width, width)
        self.out_act = nn.ReLU(inplace=True)

    def forward(self, x):
        out = self.fc2(self.act(self.fc1(x)))
        out += x
        return self.out_act(out)


class LateInPlace(nn.Module):
    """Starts adding to its first layer's output in place only after ``switch_at`` calls."""

    def __init__(self, switch_at):
        super().__init__()
        self.first, self.second = nn.Linear(6, 8), nn.Linear(8, 3)
        self.calls, self.switch_at = 0, switch_at

    def forward(self, x):
        self.calls += 1
        h = self.first(x)
        if self.calls > self.switch_at:
            h.add_(1.0)
        return self.second(h)


class Shared(nn.Module):
    """One layer called twice per forward pass."""

    def __init__(self):
        super().__init__()
        self.inp, self.shared, self.head = nn.Linear(6, 8), nn.Linear(8, 8), nn.Linear(8, 3)

    def forward(self, x):
        return self.head(torch.relu(self.shared(torch.relu(self.shared(self.inp(x))))))


MODELS = {
    "inplace-relu": lambda: nn.Sequential(nn.Linear(6, 16), nn.ReLU(inplace=True),
                                          nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 3)),
    "residual": lambda: nn.Sequential(nn.Linear(6, 8), ResidualBlock(8), ResidualBlock(8),
                                      nn.Linear(8, 3)),
    "shared-layer": Shared,
    "one-big-output": lambda: nn.Sequential(nn.Linear(6, 5000), nn.ReLU(), nn.Linear(5000, 3)),
}


def train(make, late=True, **watch):
    """STEPS recorded steps of ``make()``; ``late=False`` measures every output in its hook."""
    torch.manual_seed(0)
    model = make()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    rng = np.random.default_rng(0)
    saved = hooks.MEASURED_LATE_MAX
    hooks.MEASURED_LATE_MAX = saved if late else -1
    try:
        with nd.watch(model, optimizer, overhead=None, **watch) as monitor:
            for _ in range(STEPS):
                x = torch.from_numpy(rng.normal(size=(16, 6)).astype(np.float32))
                y = torch.from_numpy(rng.integers(0, 3, size=16))
                optimizer.zero_grad()
                loss = nn.functional.cross_entropy(model(x), y)
                loss.backward()
                optimizer.step()
                monitor.step(loss)
    finally:
        hooks.MEASURED_LATE_MAX = saved
    return monitor


def assert_same_layers(a, b, missing=()):
    """Record ``a`` holds what ``b`` holds, in the same order, except the ``missing`` layers."""
    assert list(a.activations) == [k for k in b.activations if k not in missing]
    for layer, stats in a.activations.items():
        assert stats.keys() == b.activations[layer].keys(), layer
        for name, value in stats.items():
            assert np.isclose(value, b.activations[layer][name], rtol=1e-5, atol=1e-6), \
                (layer, name)
    assert a.dead_units.keys() == {k for k in b.dead_units if k not in missing}
    for layer, dead in a.dead_units.items():
        assert np.array_equal(dead, b.dead_units[layer]), layer


@pytest.mark.parametrize("name", sorted(MODELS))
def test_records_are_what_measuring_each_output_at_once_gives(name, monkeypatch):
    measured_late = []
    batched = statistics.batched_light_stats

    def spy(xp, outputs, relu):
        measured_late.extend(tuple(out.shape) for out in outputs)
        return batched(xp, outputs, relu)
    monkeypatch.setattr(statistics, "batched_light_stats", spy)
    late = train(MODELS[name])
    assert measured_late and all(np.prod(shape) <= hooks.MEASURED_LATE_MAX
                                 for shape in measured_late)
    at_once = train(MODELS[name], late=False)
    assert [r.step for r in late.run.records] == list(range(STEPS))
    for a, b in zip(late.run.records, at_once.run.records):
        assert_same_layers(a, b)
    assert [step for step, _ in late.run.histograms] == [step for step, _ in at_once.run.histograms]


def test_outputs_changed_in_place_are_found_on_the_first_record_and_measured_at_once():
    monitor = train(MODELS["residual"])
    changed = monitor.hooks.changed_later
    # each fc2's output gets the skip added (out += x) and then the in-place ReLU; the skip
    # itself is only read, and the in-place ReLUs' own outputs are not changed after them
    assert changed == {"1.fc2", "2.fc2"}


def test_a_layer_changed_in_place_only_later_loses_one_record_not_its_truth():
    switch = 5         # the sixth forward pass (step 5) starts the in-place add
    late = train(lambda: LateInPlace(switch))
    at_once = train(lambda: LateInPlace(switch), late=False)
    for a, b in zip(late.run.records, at_once.run.records):
        assert_same_layers(a, b, missing={"first"} if a.step == switch else ())
    assert "first" in late.hooks.changed_later


def test_outputs_the_batched_statistics_refuse_are_measured_one_by_one(monkeypatch):
    def refuses(*args, **kwargs):
        raise RuntimeError("stack is not implemented for this tensor")
    monkeypatch.setattr(statistics, "batched_light_stats", refuses)
    monitor = train(MODELS["inplace-relu"])
    at_once = train(MODELS["inplace-relu"], late=False)
    for a, b in zip(monitor.run.records, at_once.run.records):
        assert_same_layers(a, b)
    assert not [f for f in monitor.findings() if f.code == "MONITOR_ERROR"]
