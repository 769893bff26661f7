"""EXPLODING_GRADIENTS' first-step reading (gradients many times larger than the weights)
under optimizers that step by about lr whatever the gradient's size (real-bug batch 256:
a Keras actor-critic port summing its losses over every step of two cart-pole episodes,
trained with Adam). Adam, RMSprop and their kin divide each gradient by a running size of
its own, so multiplying the loss by k leaves their steps as they were: a large gradient
there is a scale, not a blow-up. Under SGD the same gradient is the step, and stays named.

Also LR_TOO_HIGH on a loss without a level (a policy surrogate): its curve rises and swings
with the advantages, which is no sign of the rate; the case's fixed twin stays silent."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs._common import batches, classification  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
STEPS = 60
LOSS_SCALE = 1000.0     # a loss summed over many terms: every gradient 1000 times a mean's


def _codes(mon):
    return {f.code for f in mon.findings() if f.severity in ("warning", "error")}


def _all_codes(mon):
    return {f.code for f in mon.findings()}


def _train(make_optimizer):
    torch.manual_seed(0)
    x, y = classification()
    model = nn.Sequential(nn.Linear(x.shape[1], 32), nn.ReLU(), nn.Linear(32, 10))
    optimizer = make_optimizer(model.parameters())
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer) as mon:
        for xb, yb in batches(x, y, STEPS):
            optimizer.zero_grad()
            loss = LOSS_SCALE * loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


@pytest.mark.parametrize("make_optimizer", [
    lambda p: torch.optim.Adam(p, lr=1e-3),
    lambda p: torch.optim.RMSprop(p, lr=1e-3),
    lambda p: torch.optim.Adagrad(p, lr=1e-2)], ids=["Adam", "RMSprop", "Adagrad"])
def test_a_large_loss_scale_under_a_scale_free_optimizer_is_no_blow_up(make_optimizer):
    assert "EXPLODING_GRADIENTS" not in _all_codes(_train(make_optimizer))


def test_the_same_gradients_under_plain_sgd_are_named():
    mon = _train(lambda p: torch.optim.SGD(p, lr=0.1 / LOSS_SCALE))
    exploding = [f for f in mon.findings() if f.code == "EXPLODING_GRADIENTS"]
    assert exploding and exploding[0].evidence.get("from_start")


def test_minigrad_adam_with_a_large_loss_scale_is_silent():
    import numpy as np
    import minigrad as mg
    import minigrad.nn as mnn
    import minigrad.optim as moptim
    mg.manual_seed(0)
    x, y = (a.numpy() for a in classification())
    model = mnn.Sequential(mnn.Linear(x.shape[1], 32), mnn.ReLU(), mnn.Linear(32, 10))
    optimizer = moptim.Adam(model.parameters(), lr=1e-3)
    loss_fn = mnn.CrossEntropyLoss()
    rows = np.random.default_rng(1)
    with nd.watch(model, optimizer=optimizer) as mon:
        for _ in range(STEPS):
            i = rows.integers(0, len(x), 64)
            optimizer.zero_grad()
            loss = loss_fn(model(mg.tensor(x[i])), mg.tensor(y[i])) * LOSS_SCALE
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert "EXPLODING_GRADIENTS" not in _all_codes(mon)


def test_keras_actor_critic_twin_is_silent():
    from benchmarks.real_bugs import keras_actor_critic_value_not_stop_gradient as case
    assert _codes(case.run(fixed=True)) == set()
