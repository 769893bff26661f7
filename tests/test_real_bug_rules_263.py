"""Real-bug batch 263 (batch norm and dropout in first training scripts): a hand-written
batch norm whose running statistics carry another spelling than ``running_*``/``moving_*``
- improved-gan's ``avg_batch_mean``/``avg_batch_var``, whose queued updates the script never
applies (openai/improved-gan#17), and the ``pop_mean``/``pop_var`` of batch-norm tutorials -
is followed like the others: never updated while it trains, it is named
(BATCHNORM_STATISTICS_FROZEN). The twins that apply the updates stay silent, and so does a
layer that only holds a fixed input mean and std (no averaging prefix) or an averaged
buffer that is no statistic."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

from benchmarks.real_bugs import batchnorm_average_updates_built_but_never_applied as case  # noqa: E402,E501
from benchmarks.real_bugs._common import batches, classification  # noqa: E402
import nndebug as nd  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
FROZEN = "BATCHNORM_STATISTICS_FROZEN"


def _codes(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def _train(model, steps=12, after_step=None):
    torch.manual_seed(0)
    x, y = classification()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer) as mon:
        for xb, yb in batches(x[:512], y[:512], steps, batch_size=32):
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            if after_step is not None:
                after_step()
            mon.step(loss)
    return mon


class PopulationNorm(nn.Module):
    """A tutorial batch norm with ``pop_mean``/``pop_var``; ``update`` says whether the
    training branch writes the new averages back."""

    def __init__(self, features, update):
        super().__init__()
        self.gamma = nn.Parameter(torch.ones(features))
        self.beta = nn.Parameter(torch.zeros(features))
        self.register_buffer("pop_mean", torch.zeros(features))
        self.register_buffer("pop_var", torch.ones(features))
        self.update = update

    def forward(self, x):
        if self.training:
            mean, var = x.mean(0), x.var(0, unbiased=False)
            if self.update:
                with torch.no_grad():
                    self.pop_mean.mul_(0.9).add_(0.1 * mean)
                    self.pop_var.mul_(0.9).add_(0.1 * var)
        else:
            mean, var = self.pop_mean, self.pop_var
        return self.gamma * (x - mean) / torch.sqrt(var + 1e-5) + self.beta


class InputStandardiser(nn.Module):
    """Fixed input statistics kept as buffers (never meant to move)."""

    def __init__(self, mean, std):
        super().__init__()
        self.register_buffer("mean", mean)
        self.register_buffer("std", std)

    def forward(self, x):
        return (x - self.mean) / self.std


class AveragedScale(nn.Module):
    """A buffer with an averaging prefix that is no statistic (a fixed scale)."""

    def __init__(self):
        super().__init__()
        self.register_buffer("avg_pool_scale", torch.tensor(0.5))

    def forward(self, x):
        return x * (2 * self.avg_pool_scale)


def _mlp(norm):
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(64, 32), norm, nn.ReLU(), nn.Linear(32, 10))


# --- the report (openai/improved-gan#17) ---------------------------------------------------
def test_queued_average_updates_never_applied_are_named():
    found = [f for f in case.run(steps=30).findings() if f.code == FROZEN]
    assert found and found[0].severity == "warning"
    assert found[0].where == "1"
    assert found[0].evidence["layers"]["1"] == ["avg_batch_mean", "avg_batch_var"]


def test_queued_average_updates_applied_stay_silent():
    assert FROZEN not in _codes(case.run(fixed=True, steps=30))


def test_improved_gan_layer_alone_planted_and_twin():
    norm = case.BatchNorm(32)
    assert FROZEN in _codes(_train(_mlp(norm)))
    norm = case.BatchNorm(32)
    assert FROZEN not in _codes(_train(_mlp(norm), after_step=norm.apply_updates))


# --- the tutorial spelling -----------------------------------------------------------------
def test_population_statistics_never_updated_are_named():
    assert FROZEN in _codes(_train(_mlp(PopulationNorm(32, update=False))))


def test_population_statistics_updated_stay_silent():
    assert FROZEN not in _codes(_train(_mlp(PopulationNorm(32, update=True))))


# --- look-alikes ---------------------------------------------------------------------------
def test_fixed_input_statistics_are_not_running_statistics():
    x, _ = classification()
    model = nn.Sequential(InputStandardiser(x.mean(0), x.std(0) + 0.1), nn.Linear(64, 32),
                          nn.ReLU(), nn.Linear(32, 10))
    assert FROZEN not in _codes(_train(model))


def test_averaged_buffer_that_is_no_statistic_is_not_followed():
    assert FROZEN not in _codes(_train(_mlp(AveragedScale())))


def test_the_buffer_names_read():
    from nndebug.monitor.running_buffers import statistics_name
    assert statistics_name("running_mean") and statistics_name("moving_variance")
    assert statistics_name("avg_batch_mean") and statistics_name("pop_var")
    assert statistics_name("population_std") and statistics_name("average_mean")
    assert not statistics_name("mean") and not statistics_name("std")
    assert not statistics_name("avg_pool_scale") and not statistics_name("ema_weight")
