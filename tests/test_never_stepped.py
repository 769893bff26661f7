"""NO_OPTIMIZER_STEP for a loop whose optimizer never steps while watch's step() is called on
every batch (real-bug batch 254, pytorch/pytorch#3814: ``scheduler.step()`` written where
``optimizer.step()`` belongs). Before, the rule named a missing step only when nothing at
all was recorded, or when the optimizer stepped on a few watched steps; with no step at all
and every batch recorded, only the symptoms showed (PARAMS_NOT_UPDATING, LR_AT_ZERO).
Healthy look-alikes: the ordinary loop, and weights updated by hand beside an optimizer
passed to watch but never stepped (the weights move)."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs._common import batches, classification  # noqa: E402

pytestmark = [pytest.mark.usefixtures("one_torch_thread"),
              pytest.mark.filterwarnings("ignore:Detected call of `lr_scheduler.step")]
CODE = "NO_OPTIMIZER_STEP"
STEPS = 40


def _codes(mon):
    return {f.code for f in mon.findings() if f.severity in ("warning", "error")}


def _train(update):
    torch.manual_seed(0)
    x, y = classification()
    model = nn.Sequential(nn.Linear(x.shape[1], 32), nn.ReLU(), nn.Linear(32, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=10, gamma=0.5)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer) as mon:
        for xb, yb in batches(x, y, STEPS):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            update(model, optimizer, scheduler)
            mon.step(loss)
    return mon


def _scheduler_in_place_of_optimizer(model, optimizer, scheduler):
    scheduler.step()


def _both(model, optimizer, scheduler):
    optimizer.step()
    scheduler.step()


def _by_hand(model, optimizer, scheduler):
    with torch.no_grad():
        for p in model.parameters():
            p -= 0.1 * p.grad


def test_a_scheduler_stepped_in_place_of_the_optimizer_is_named():
    assert CODE in _codes(_train(_scheduler_in_place_of_optimizer))


@pytest.mark.parametrize("update", [_both, _by_hand], ids=["ordinary", "by hand"])
def test_loops_whose_weights_move_are_silent(update):
    assert CODE not in _codes(_train(update))


def test_minigrad_loop_that_never_steps_is_named():
    import minigrad as mg
    import minigrad.nn as mnn
    import minigrad.optim as moptim
    mg.manual_seed(0)
    x, y = (a.numpy() for a in classification())
    model = mnn.Sequential(mnn.Linear(x.shape[1], 32), mnn.ReLU(), mnn.Linear(32, 10))
    optimizer = moptim.SGD(model.parameters(), lr=0.1)
    loss_fn = mnn.CrossEntropyLoss()
    rows = np.random.default_rng(1)
    with nd.watch(model, optimizer=optimizer) as mon:
        for _ in range(STEPS):
            i = rows.integers(0, len(x), 64)
            optimizer.zero_grad()
            loss = loss_fn(model(mg.tensor(x[i])), mg.tensor(y[i]))
            loss.backward()                      # no optimizer.step()
            mon.step(loss)
    assert CODE in _codes(mon)
