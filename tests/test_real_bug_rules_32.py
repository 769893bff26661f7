"""Real-bug batch 32 (gradient code users write themselves): a straight-through estimator
written without its detach, ``x + (q - x)``, whose two gradients of ``x`` cancel
(STRAIGHT_THROUGH_NOT_DETACHED). The detached estimator, an interpolation
``x + a * (q - x)``, a roundabout ``x + (f(x) - x)`` and weights quantised with a detached
estimator stay silent."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import straight_through_estimator_not_detached as ste_case  # noqa: E402
from benchmarks.real_bugs._common import batches, classification  # noqa: E402
from nndebug.monitor.graph_walks import nodes_under  # noqa: E402
from nndebug.monitor.straight_through_cancellations import (  # noqa: E402
    count_cancelled_straight_throughs)
from nndebug.observed import Observed  # noqa: E402
from nndebug.records import RunRecord  # noqa: E402
from nndebug.rules.straight_through import straight_through_not_detached  # noqa: E402
from nndebug.rules.context import Context  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
CODE = "STRAIGHT_THROUGH_NOT_DETACHED"


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def _count(expression):
    """Cancelled sums in the graph of ``expression(x, q)`` on a fresh x (requires grad)."""
    x = torch.randn(4, 3, requires_grad=True) * 1.0       # a non-leaf, as activations are
    q = torch.randn(4, 3).round()
    return count_cancelled_straight_throughs(nodes_under([expression(x, q).grad_fn]))


def test_every_way_of_writing_the_undetached_estimator_is_counted():
    assert _count(lambda x, q: x + (q - x)) == 1
    assert _count(lambda x, q: (q - x) + x) == 1
    assert _count(lambda x, q: x - (x - q)) == 1
    assert _count(lambda x, q: x + (x.round() - x)) == 1          # round's gradient is zero


def test_the_detached_estimator_and_look_alikes_are_not():
    assert _count(lambda x, q: x + (q - x).detach()) == 0
    assert _count(lambda x, q: x - x.detach() + q) == 0
    assert _count(lambda x, q: x + 0.5 * (q - x)) == 0              # an interpolation
    assert _count(lambda x, q: x + (torch.tanh(x) - x)) == 0       # q computed from x
    assert _count(lambda x, q: (x - q) + x) == 0                   # no cancellation
    assert _count(lambda x, q: x + torch.sub(q, x, alpha=2)) == 0  # x counted -1 of 2


def test_the_planted_case_is_named():
    assert CODE in _problems(ste_case.run(steps=12))


def test_its_fixed_twin_is_silent():
    assert CODE not in _problems(ste_case.run(fixed=True, steps=12))


class QuantisedLinear(nn.Module):
    """Weights rounded to a grid in the forward, trained through a detached estimator (the
    healthy quantisation-aware training this rule must leave alone)."""

    def __init__(self, inputs, outputs, step=0.05):
        super().__init__()
        self.linear, self.step = nn.Linear(inputs, outputs), step

    def forward(self, x):
        w = self.linear.weight
        rounded = torch.round(w / self.step) * self.step
        return F.linear(x, w + (rounded - w).detach(), self.linear.bias)


class SoftMix(nn.Module):
    """Features pulled half-way to their rounded values: an interpolation, not an estimator."""

    def __init__(self):
        super().__init__()
        self.hidden, self.head = nn.Linear(64, 32), nn.Linear(32, 10)

    def forward(self, x):
        h = torch.relu(self.hidden(x))
        return self.head(h + 0.5 * (h.round() - h))


@pytest.mark.parametrize("model", [
    lambda: nn.Sequential(QuantisedLinear(64, 32), nn.ReLU(), QuantisedLinear(32, 10)),
    SoftMix,
    lambda: nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10)),
], ids=["quantisation-aware", "interpolation", "plain-mlp"])
def test_healthy_classifiers_stay_silent(model):
    torch.manual_seed(0)
    x, y = classification()
    net = model()
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
    with nd.watch(net, optimizer) as mon:
        for xb, yb in batches(x, y, 12):
            optimizer.zero_grad()
            loss = F.cross_entropy(net(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert not _problems(mon)
    assert mon.run.observed.straight_through_cancellations       # the forward was walked


def _rule_on(rows):
    run = RunRecord()
    run.observed = Observed()
    run.observed.straight_through_cancellations = rows
    return straight_through_not_detached(Context(run))


def test_one_measured_step_or_a_step_without_it_is_not_enough():
    assert _rule_on([(0, 1)]) is None
    assert _rule_on([(0, 1), (1, 0), (2, 1)]) is None
    assert _rule_on([]) is None
    assert _rule_on([(0, 1), (1, 1)]).code == CODE
