"""Each statistic against a NumPy reference, on plain arrays (NumPy and torch namespaces)."""
import numpy as np
import pytest

from nndebug.adapters.minigrad_adapter import NumpyNamespace
from nndebug.monitor import statistics

torch = pytest.importorskip("torch")
from nndebug.adapters.torch_adapter import TorchNamespace  # noqa: E402

NAMESPACES = {"numpy": (NumpyNamespace(), np.asarray),
              "torch": (TorchNamespace(), lambda a: torch.from_numpy(np.asarray(a)))}


def host(value):
    return np.asarray(value.numpy() if hasattr(value, "numpy") else value, dtype=float)


def as_dict(stats):
    return {name: host(value) for name, value in stats}


@pytest.fixture(params=sorted(NAMESPACES))
def space(request):
    return NAMESPACES[request.param]


def sample(shape, seed=0):
    return np.random.default_rng(seed).normal(size=shape).astype(np.float32)


def test_input_stats(space):
    xp, make = space
    x = sample((8, 5))
    x[:, 2] = 3.0                                    # one constant feature
    got = as_dict(statistics.input_stats(xp, make(x), heavy=True))
    assert np.allclose(got["mean"], x.mean(), atol=1e-6)
    assert np.allclose(got["std"], x.std(), atol=1e-6)
    assert np.allclose(got["constant_features"], 1 / 5)
    assert got["batch"] == 8
    light = as_dict(statistics.input_stats(xp, make(x), heavy=False))
    assert "constant_features" not in light


def test_relu_unit_max_and_dead_units(space):
    xp, make = space
    x = np.maximum(sample((6, 4, 3, 3)), 0)
    x[:, 1] = 0.0                                    # channel 1 dead for every sample
    got = as_dict(statistics.layer_stats(xp, make(x), "relu"))
    assert np.allclose(got["unit_max"], x.max(axis=(0, 2, 3)))
    dead, share = statistics.dead_units(got["unit_max"])
    assert dead.tolist() == [False, True, False, False] and share == 0.25
    dead, share = statistics.dead_units(np.array([1.0, np.nan]))   # NaN: neither dead nor alive
    assert dead is None and np.isnan(share)


@pytest.mark.parametrize("kind, values, expected", [
    ("tanh", [0.0, 0.995, -0.999, 0.5], 0.5),
    ("sigmoid", [0.5, 0.995, 0.005, 0.98], 0.5),
])
def test_saturated_share(space, kind, values, expected):
    xp, make = space
    x = np.array([values, values], dtype=np.float32)
    got = as_dict(statistics.layer_stats(xp, make(x), kind))
    assert np.allclose(got["saturated"], expected)


def test_heavy_layer_statistics(space):
    xp, make = space
    x = sample((16, 7), seed=3)
    got = as_dict(statistics.layer_stats(xp, make(x), "other", heavy=True))
    assert np.allclose(got["mean"], x.mean(), atol=1e-6)
    assert np.allclose(got["std"], x.std(), atol=1e-6)
    assert np.allclose(got["absmax"], np.abs(x).max())
    assert np.allclose(got["batch_spread"], x.std(axis=0).mean(), atol=1e-6)
    assert np.allclose(got["unit_spread"], x.std(axis=1).mean(), atol=1e-6)
    assert np.array_equal(got["histogram"], x.reshape(-1)[:statistics.HISTOGRAM_SAMPLE])
    light = as_dict(statistics.layer_stats(xp, make(x), "other"))
    assert set(light) == {"mean", "std"}


def test_histogram_of_finite_values_only():
    counts, edges = statistics.histogram(np.array([0.0, 1.0, np.nan, np.inf, 1.0]), bins=2)
    assert counts.tolist() == [1, 2] and edges[0] == 0.0 and edges[-1] == 1.0
    assert statistics.histogram(np.array([np.nan])) is None


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("scale", [1e-3, 1.0, 1e4])
def test_histogram_agrees_with_numpys(seed, scale):
    """The direct binning gives np.histogram's edges and its counts (a value within rounding
    of an inner edge may move to the next bin: at most a handful out of 4096)."""
    values = (np.random.default_rng(seed).standard_normal(4096) * scale + scale)
    values = values.astype(np.float32)
    counts, edges = statistics.histogram(values)
    numpy_counts, numpy_edges = np.histogram(values.astype(np.float64),
                                             bins=statistics.HISTOGRAM_BINS)
    assert np.array_equal(edges, numpy_edges) and counts.sum() == values.size
    assert np.abs(counts - numpy_counts).sum() <= 4
