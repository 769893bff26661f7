"""Hand-written update rules that climb the gradient (real-bug batch 322: Nesterov's
look-ahead term added instead of subtracted, PaddlePaddle PR 12231): NEGATIVE_LEARNING_RATE
read from the sampled updates of the first optimizer steps (``uphill_share`` in
``monitor/update_samples.py``, ``_updates_climb`` in ``rules/negative_learning_rate.py``).
Planted: the benchmark's case, and plain SGD written as ``w += lr * g`` in a CNN. Healthy
look-alikes a careless rule would flag, each subclassed so that its updates are followed as a
user's optimizer would be: heavy-ball momentum 0.99, Nesterov, a high rate with momentum,
Adam, RMSprop, Adagrad, and the case's fixed twin."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import nesterov_momentum_term_added_with_wrong_sign as nesterov_case  # noqa: E402,E501
from benchmarks.real_bugs._common import batches, classification, mlp  # noqa: E402
from nndebug.monitor.update_samples import uphill_share, written_by_torch  # noqa: E402
from nndebug.runfile import ROW_READERS  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
CODE = "NEGATIVE_LEARNING_RATE"


def _found(mon):
    return {f.code: f for f in mon.findings() if f.severity in ("warning", "error")}


def _train(model, optimizer, steps=60, images=False):
    x, y = classification(images=images)
    with nd.watch(model, optimizer) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


class AscendingSGD(torch.optim.Optimizer):
    """Plain SGD with its sign flipped: w += lr * g."""

    def __init__(self, params, lr):
        super().__init__(params, dict(lr=lr))

    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    p += group["lr"] * p.grad


def test_the_benchmark_case_is_named_and_its_twin_silent():
    found = _found(nesterov_case.run(steps=120))
    assert CODE in found
    assert found[CODE].evidence["climbing_share"] >= 0.9
    assert CODE not in _found(nesterov_case.run(fixed=True, steps=120))


def test_plain_sgd_written_as_ascent_in_a_cnn_is_named():
    torch.manual_seed(5)
    model = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.Flatten(),
                          nn.Linear(8 * 8 * 8, 10))
    finding = _found(_train(model, AscendingSGD(model.parameters(), 0.01), steps=40,
                            images=True)).get(CODE)
    assert finding is not None
    assert finding.evidence["steps_compared"] >= 20


@pytest.mark.parametrize("make", [
    lambda p: torch.optim.SGD(p, lr=0.01, momentum=0.99),
    lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9, nesterov=True),
    lambda p: torch.optim.SGD(p, lr=0.5, momentum=0.9),
    lambda p: torch.optim.Adam(p, lr=1e-3),
    lambda p: torch.optim.RMSprop(p, lr=1e-3),
    lambda p: torch.optim.Adagrad(p, lr=0.05),
], ids=["momentum_0.99", "nesterov", "high_rate_momentum", "adam", "rmsprop", "adagrad"])
def test_descending_optimizers_are_not_told_they_climb(make):
    torch.manual_seed(6)
    model = mlp()
    optimizer = make(model.parameters())
    optimizer.__class__ = type("Users" + type(optimizer).__name__, (type(optimizer),), {})
    assert not written_by_torch(optimizer)
    mon = _train(model, optimizer, steps=60)
    rows = mon.run.observed.update_fits
    assert rows and all(len(row) == 11 and row[9] >= 20 for row in rows)
    assert CODE not in _found(mon)


def test_uphill_share_counts_steps_whose_update_follows_the_gradient():
    rng = np.random.default_rng(0)
    grads = rng.normal(size=(30, 64))
    assert uphill_share(grads, -0.1 * grads) == (30, 0.0)
    assert uphill_share(grads, 0.1 * grads) == (30, 1.0)
    deltas = -0.1 * grads
    deltas[:10] *= -1
    deltas[10:12] = np.nan          # steps with no finite entries are not compared
    deltas[12] = 0.0                # nor a step that did not move
    steps, share = uphill_share(grads, deltas)
    assert steps == 27 and share == pytest.approx(10 / 27)


def test_saved_rows_read_back_with_and_without_the_direction_columns():
    old = ["w", 40, 1.0, -0.1, 0.0, 0.0, 39, 0.0, 0.0]
    new = old + [40, 0.975]
    assert ROW_READERS["update_fits"](old) == tuple(old)
    assert ROW_READERS["update_fits"](new) == tuple(new)
