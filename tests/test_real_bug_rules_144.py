"""Real-bug batch 144 (bugs in Lightning code): a learning-rate scheduler built for the
watched optimizer and never stepped (LR_SCHEDULER_NEVER_STEPPED): Lightning leaves
schedulers to the user under manual optimisation. The monitor reads the schedulers at its
close when torch marked the optimizer's step as wrapped by one, even if the rate never
moved; a scheduler with no step() call in a run of 100+ steps is named. Stepped per epoch,
or a run too short for its first epoch, says nothing."""
import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402

from benchmarks.real_bugs._common import classification, mlp  # noqa: E402
import nndebug as nd  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
CODE = "LR_SCHEDULER_NEVER_STEPPED"


def _train(steps, per_epoch=20, stepped=True, scheduler=True):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    schedule = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.8) if scheduler \
        else None
    with nd.watch(model, optimizer) as mon:
        for step in range(steps):
            rows = torch.arange(32) + (32 * step) % (len(x) - 32)
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x[rows]), y[rows])
            loss.backward()
            optimizer.step()
            mon.step(loss)
            if stepped and schedule is not None and (step + 1) % per_epoch == 0:
                schedule.step()
    return {f.code: f for f in mon.findings()}


def test_a_scheduler_never_stepped_is_named():
    found = _train(160, stepped=False)
    assert CODE in found and found[CODE].severity == "warning", found
    assert found[CODE].evidence["schedulers"] == ["ExponentialLR"]
    assert found[CODE].evidence["rates"] == [0.1]


def test_a_scheduler_stepped_each_epoch_is_silent():
    assert CODE not in _train(160)


def test_a_run_ending_inside_its_first_epoch_is_not_judged():
    assert CODE not in _train(60, per_epoch=100)


def test_no_scheduler_no_finding():
    assert CODE not in _train(160, scheduler=False)
