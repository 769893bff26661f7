"""Real-bug batch 99 (optimizers and parameter updates written by hand): a weight-decay
penalty entered with the wrong sign (WEIGHT_DECAY_SIGN_INVERTED) and a momentum velocity
that never decays (GRADIENTS_ACCUMULATING), both read from sampled entries of each
optimizer step (``monitor/update_samples.py``, ``rules/handwritten_updates.py``). Variants:
a CNN, other rates, decays and momenta, the velocity bug in the form of plain SGD whose
.grad is never cleared. Fixed twins silent, and the healthy look-alikes a careless rule
would flag: torch's SGD with weight decay, SGD with momentum 0.99 and Nesterov, Adam,
AdamW, RMSprop, and a hand-written momentum with the right rule. Also: a hand-written
update without a watched optimizer is no clipping (GRADIENTS_CLIPPED_AWAY needs .grad read
at optimizer.step())."""
import types

import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import handwritten_momentum_velocity_never_decays as momentum_case  # noqa: E402,E501
from benchmarks.real_bugs import handwritten_sgd_divides_mean_loss_by_batch_size as divided_case  # noqa: E402,E501
from benchmarks.real_bugs import handwritten_weight_decay_sign_inverted as decay_case  # noqa: E402,E501
from benchmarks.real_bugs._common import batches, classification, mlp  # noqa: E402
from nndebug.monitor.update_samples import update_fits, written_by_torch  # noqa: E402
from nndebug.rules.handwritten_updates import weight_decay_sign_inverted  # noqa: E402
from nndebug.rules.update_fit_readers import velocity_never_decays  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
INVERTED = "WEIGHT_DECAY_SIGN_INVERTED"
ACCUMULATING = "GRADIENTS_ACCUMULATING"


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def _cnn():
    return nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 8, 3),
                         nn.ReLU(), nn.Flatten(), nn.Linear(8 * 6 * 6, 10))


def _train(model, optimizer, steps=60, images=False, zero_grad=True):
    x, y = classification(images=images)
    with nd.watch(model, optimizer) as mon:
        for xb, yb in batches(x, y, steps):
            if zero_grad:
                optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


# --- the planted cases and their twins -----------------------------------------------------

@pytest.mark.parametrize("case, code", [(decay_case, INVERTED), (momentum_case, ACCUMULATING)])
def test_planted_cases_are_named_and_twins_silent(case, code):
    assert code in _problems(case.run(steps=120))
    assert not _problems(case.run(fixed=True, steps=120))


def test_sgd_divided_twice_without_optimizer_is_no_clipping():
    found = {f.code: f.severity for f in divided_case.run(steps=150).findings()}
    assert "GRADIENTS_CLIPPED_AWAY" not in found
    assert not _problems(divided_case.run(fixed=True, steps=150))


# --- variants --------------------------------------------------------------------------------

def test_inverted_decay_in_a_cnn_at_another_rate_is_named():
    torch.manual_seed(1)
    model = _cnn()
    optimizer = decay_case.DecayedSGD(model.parameters(), 0.05, 1e-3, fixed=False)
    mon = _train(model, optimizer, steps=40, images=True)
    finding = next(f for f in mon.findings() if f.code == INVERTED)
    assert finding.evidence["implied_decay"] == pytest.approx(-1e-3, rel=0.05)


@pytest.mark.parametrize("mu", [0.5, 0.9])
def test_velocity_never_decaying_in_a_cnn_is_named(mu):
    torch.manual_seed(2)
    model = _cnn()
    optimizer = momentum_case.HandwrittenMomentum(model.parameters(), 0.005, mu, fixed=False)
    assert ACCUMULATING in _problems(_train(model, optimizer, steps=40, images=True))


def test_grad_never_cleared_under_plain_sgd_is_named():
    torch.manual_seed(3)
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    assert ACCUMULATING in _problems(_train(model, optimizer, steps=40, zero_grad=False))


# --- healthy look-alikes ---------------------------------------------------------------------

@pytest.mark.parametrize("make", [
    lambda p: torch.optim.SGD(p, lr=0.1, weight_decay=5e-4),
    lambda p: torch.optim.SGD(p, lr=0.01, momentum=0.99),
    lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9, nesterov=True, weight_decay=1e-4),
    lambda p: torch.optim.Adam(p, lr=1e-3),
    lambda p: torch.optim.AdamW(p, lr=1e-3, weight_decay=0.05),
    lambda p: torch.optim.RMSprop(p, lr=1e-3),
    lambda p: momentum_case.HandwrittenMomentum(p, 0.02, 0.95, fixed=True),
], ids=["sgd_decay", "momentum_0.99", "nesterov", "adam", "adamw", "rmsprop", "handwritten"])
def test_healthy_optimizers_stay_silent(make):
    """torch's own optimizers are not followed (``written_by_torch``): each is subclassed here,
    as a user's optimizer would be, so that its updates are sampled and fitted."""
    torch.manual_seed(4)
    model = mlp()
    optimizer = make(model.parameters())
    if written_by_torch(optimizer):
        optimizer.__class__ = type("Users" + type(optimizer).__name__, (type(optimizer),), {})
    assert not written_by_torch(optimizer)
    mon = _train(model, optimizer, steps=60)
    assert mon.run.observed.update_fits, "the updates were not fitted"
    found = _problems(mon)
    assert INVERTED not in found and ACCUMULATING not in found


def test_torch_own_optimizers_are_not_followed():
    torch.manual_seed(4)
    model = mlp()
    mon = _train(model, torch.optim.Adam(model.parameters(), lr=1e-3), steps=30)
    assert mon.run.observed.update_fits == []


# --- the fits and the rules on hand-made rows -----------------------------------------------

def test_update_fits_read_the_update_rule():
    import numpy as np
    rng = np.random.default_rng(0)
    w, g = rng.normal(size=(30, 64)), rng.normal(size=(30, 64))
    decayed = -0.1 * (g + 0.01 * w)
    row = update_fits("w", w, g, decayed)
    assert row[2] == 1.0 and row[3] == pytest.approx(-0.1) and row[4] == pytest.approx(-1e-3)
    assert row[5] == 0.0
    velocity, deltas = np.zeros(64), []
    for k in range(30):
        velocity = velocity + 0.9 * g[k]
        deltas.append(-0.1 * velocity)
    row = update_fits("w", w, g, np.array(deltas))
    assert row[7] == 1.0 and row[8] == pytest.approx(1.0)
    assert update_fits("w", w, g, np.zeros_like(w)) is None     # nothing moved
    assert update_fits("w", w, 0.5 * w, -0.1 * w) is None       # parallel: no split


def _ctx(*rows):
    return types.SimpleNamespace(run=types.SimpleNamespace(
        observed=types.SimpleNamespace(update_fits=list(rows))))


def test_rules_on_hand_made_rows():
    inverted = ("0.weight", 200, 1.0, -0.5, 0.01, 1.0, 199, 0.02, 1.01)
    decayed = ("0.weight", 200, 1.0, -0.5, -0.01, 0.0, 199, 0.0, 0.0)
    plain = ("0.weight", 200, 1.0, -0.1, 1e-10, 0.55, 199, 1.0, -1e-7)
    never = ("0.weight", 200, 0.01, -0.02, 1e-9, 0.5, 199, 1.0, 1.0)
    momentum = ("0.weight", 200, 0.01, -0.02, 1e-9, 0.5, 199, 1.0, 0.99)
    rule = weight_decay_sign_inverted
    assert rule(_ctx(inverted)).code == INVERTED
    assert rule(_ctx(decayed)) is None and rule(_ctx(plain)) is None
    assert rule(_ctx(("0.weight", 10, 1.0, -0.5, 0.01, 1.0, 9, 0.0, 1.0))) is None  # too few
    assert velocity_never_decays(_ctx(never)).code == ACCUMULATING
    assert velocity_never_decays(_ctx(momentum)) is None
    assert velocity_never_decays(_ctx(plain)) is None


def test_step_hooks_go_at_close():
    torch.manual_seed(5)
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    pre = len(optimizer._optimizer_step_pre_hooks)
    post = len(optimizer._optimizer_step_post_hooks)
    _train(model, optimizer, steps=5)
    assert len(optimizer._optimizer_step_pre_hooks) == pre
    assert len(optimizer._optimizer_step_post_hooks) == post


def test_fits_saved_and_loaded(tmp_path):
    mon = decay_case.run(steps=30)
    path = tmp_path / "run.nndebug"
    mon.save(str(path))
    observed = nd.load_run(str(path)).run.observed
    assert observed.update_fits
    assert len(observed.update_fits) == len(mon.run.observed.update_fits)
    for loaded, kept in zip(observed.update_fits, mon.run.observed.update_fits):
        assert loaded[0] == kept[0] and len(loaded) == len(kept)
        assert [type(v) for v in loaded] == [type(v) for v in kept]
        assert loaded[1:] == pytest.approx(kept[1:])
