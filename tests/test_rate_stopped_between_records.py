"""LR_AT_ZERO for a rate that reaches zero between two judged records (real-bug batch 284: a
linear decay stepped BEFORE each epoch's batches spends the whole last epoch at 0, while the
records, thinned to steps 64 and 128, still saw the rate falling). The optimizer's step hook
follows the highest rate of the param groups and keeps the start of the stretch at zero
still running at the end (``run.observed.stopped_rates``); the rule counts that tail.
Silent: the same decay stepped after the epoch, a decay whose last update is the only one at
zero, a rate that comes back from zero (a warm restart)."""
import minigrad
import pytest

import nndebug as nd

torch = pytest.importorskip("torch")
from torch.nn import functional as F  # noqa: E402

from benchmarks.real_bugs import linear_decay_stepped_before_each_epoch_ends_at_zero as case  # noqa: E402
from benchmarks.real_bugs._common import batches, classification, mlp  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
CODE = "LR_AT_ZERO"


def _found(mon):
    return [f for f in mon.findings() if f.code == CODE and f.severity == "warning"]


def test_the_report_is_named_and_its_twin_is_silent():
    found = _found(case.run())
    assert found and found[0].evidence["steps_at_zero_at_end"] == 45
    assert not _found(case.run(fixed=True))


def _train(rate_at, steps=200):
    """A digits MLP under SGD; ``rate_at(step)`` sets the rate of each step's update."""
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    with nd.watch(model, optimizer) as mon:
        for step, (xb, yb) in enumerate(batches(x, y, steps)):
            for group in optimizer.param_groups:
                group["lr"] = rate_at(step)
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_a_tail_at_zero_between_records_is_counted_exactly():
    # epochs of 40 steps, the rate for epoch e set to 0.1 * (1 - e / 4) before its batches
    mon = _train(lambda step: 0.1 * (1 - min(step // 40, 4) / 4))
    assert mon.run.observed.stopped_rates == [(160, 0.1)]      # the run's highest rate before
    found = _found(mon)
    assert found and found[0].evidence["steps_at_zero_at_end"] == 40


@pytest.mark.parametrize("rate_at", [
    lambda step: 0.1 * (1 - min(step // 40, 4) / 5),       # stepped after: ends at 0.02
    lambda step: 0.1 * (1 - step / 199),                    # zero on the last update only
    lambda step: 0.0 if 150 <= step < 170 else 0.1,        # back from zero: a restart
])
def test_healthy_schedules_are_silent(rate_at):
    mon = _train(rate_at)
    assert not _found(mon)
    assert len(mon.run.observed.stopped_rates) <= 1


def test_minigrad_follows_the_rate_too():
    import minigrad.nn as mnn
    from minigrad import optim
    x, y = classification()
    xs, ys = x.numpy(), y.numpy()
    minigrad.manual_seed(0)
    model = mnn.Sequential(mnn.Linear(64, 32), mnn.ReLU(), mnn.Linear(32, 10))
    optimizer = optim.SGD(model.parameters(), lr=0.1)
    with nd.watch(model, optimizer) as mon:
        for step in range(200):
            optimizer.param_groups[0]["lr"] = 0.1 if step < 150 else 0.0
            rows = slice((step * 32) % 1600, (step * 32) % 1600 + 32)
            optimizer.zero_grad()
            loss = minigrad.nn.functional.cross_entropy(model(minigrad.tensor(xs[rows])),
                                                        ys[rows])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert mon.run.observed.stopped_rates == [(150, 0.1)]
    assert _found(mon)


def test_the_stretch_survives_a_saved_run(tmp_path):
    mon = _train(lambda step: 0.1 if step < 150 else 0.0)
    path = tmp_path / "run.json"
    mon.save(str(path))
    assert nd.load_run(str(path)).run.observed.stopped_rates == [(150, 0.1)]
