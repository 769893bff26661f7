"""NEGATIVE_LEARNING_RATE (real-bug batch 123): a param group's rate below zero turns every
step into gradient ascent. The word2vec report (a rate decremented by a fixed amount per
epoch, below zero after epoch 25 of 40) drew LR_AT_ZERO, which took the rate for stopped;
the rate crosses zero between two judged records, so the optimizer's step hook notes the
first step with a negative rate. Schedules that decay to exactly zero (cosine annealing,
a linear warm-up-and-decay clamped at 0) and a constant rate stay silent."""
import pytest

torch = pytest.importorskip("torch")
from torch.nn import functional as F  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import word2vec_learning_rate_decremented_below_zero as word2vec  # noqa: E402
from benchmarks.real_bugs._common import batches, classification, mlp  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
CODE = "NEGATIVE_LEARNING_RATE"


def _found(mon):
    return [f for f in mon.findings() if f.code == CODE and f.severity == "warning"]


def test_the_report_is_named_and_its_twin_is_silent():
    found = _found(word2vec.run())
    assert found and found[0].evidence["first_negative_step"] == 260
    assert found[0].evidence["lowest_rate"] < 0
    assert not _found(word2vec.run(fixed=True))


def _train(rate_at, steps=60, scheduler=None):
    """A digits MLP under SGD; ``rate_at(step)`` (or ``scheduler``) sets the rate."""
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    schedule = scheduler(optimizer) if scheduler else None
    with nd.watch(model, optimizer) as mon:
        for step, (xb, yb) in enumerate(batches(x, y, steps)):
            if rate_at is not None:
                for group in optimizer.param_groups:
                    group["lr"] = rate_at(step)
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            if schedule is not None:
                schedule.step()
            mon.step(loss)
    return mon


def test_a_rate_set_below_zero_between_judged_records_is_named():
    mon = _train(lambda step: 0.1 if step < 37 else -0.05)
    found = _found(mon)
    assert found and found[0].evidence["first_negative_step"] == 37
    assert mon.run.observed.negative_rates == [(37, 0, -0.05)]


@pytest.mark.parametrize("scheduler", [
    lambda opt: torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=60),
    lambda opt: torch.optim.lr_scheduler.LambdaLR(
        opt, lambda step: min(1.0, (step + 1) / 10) * max(0.0, 1 - step / 50)),
], ids=["cosine_to_zero", "warmup_then_linear_decay_clamped_at_zero"])
def test_schedules_that_decay_to_exactly_zero_are_silent(scheduler):
    mon = _train(None, scheduler=scheduler)
    assert mon.run.observed.negative_rates == []
    assert not _found(mon)


def test_a_constant_rate_is_silent():
    mon = _train(lambda step: 0.1)
    assert mon.run.observed.negative_rates == [] and not _found(mon)


def test_negative_rates_survive_a_saved_run(tmp_path):
    mon = _train(lambda step: 0.1 if step < 37 else -0.05)
    path = tmp_path / "run.json"
    mon.save(str(path))
    assert [f.code for f in nd.load_run(str(path)).findings() if f.code == CODE] == [CODE]
