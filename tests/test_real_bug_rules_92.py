"""Real-bug batch 92 (NaN or inf losses whose answer found the source): a NaN born on a step
no record watched, named from the structure the origin watch read on its steps
(``monitor/fragile_operations.py``, ``rules/nonfinite_origins.py``): advantages divided by
a bare std (0 / 0 on a batch of equal rewards), a focal loss's (1 - p) ** 0.5 (an infinite
derivative once p rounds to 1), a mixture likelihood's log(sum(exp)) (every exp underflowed).
Variants: another batch size, SGD, ``torch.std`` and ``sqrt(var)`` forms, a binary focal on
sigmoids; fixed twins silent; healthy look-alikes: a bare std over values that are never all
equal (no NaN: nothing said), a run that blows up by its learning rate with a bare std in its
loss (a blow-up's NaN is not the std's), guarded forms the structure tests must pass."""
import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

from benchmarks.real_bugs import advantages_normalised_by_zero_std as advantages  # noqa: E402
from benchmarks.real_bugs import focal_loss_fractional_gamma_pow_at_zero as focal  # noqa: E402
from benchmarks.real_bugs import mixture_likelihood_exp_without_logsumexp as mixture  # noqa: E402,E501
from benchmarks.real_bugs._common import batches, classification, mlp, regression  # noqa: E402
from nndebug.monitor.fragile_operations import fractional_power_of_probability  # noqa: E402
from nndebug.monitor.fragile_operations import log_of_summed_exps  # noqa: E402
from nndebug.rules.nonfinite_origins import _steady_before  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
BORN = ("NAN_BORN_IN_FORWARD", "NAN_BORN_IN_BACKWARD")


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def _born(mon):
    return [f for f in mon.findings() if f.code in BORN]


# --- the planted cases and their twins -----------------------------------------------------

def test_advantages_divided_by_a_bare_std_are_named():
    mon = advantages.run()
    found = _born(mon)
    assert found and found[0].code == "NAN_BORN_IN_FORWARD"
    assert found[0].evidence["operation"] == "x / std" and found[0].evidence["inferred"]
    assert "advantages_normalised_by_zero_std.py" in found[0].evidence["source"]
    assert "std + eps" in found[0].fix
    assert not _problems(advantages.run(fixed=True))


def test_focal_power_below_one_is_named_in_the_backward():
    mon = focal.run()
    found = _born(mon)
    assert found and found[0].code == "NAN_BORN_IN_BACKWARD"
    assert found[0].evidence["operation"] == "(1 - softmax) ** 0.5"
    # the update before the first NaN loss carried the NaN gradients
    assert found[0].step == found[0].evidence["first_nonfinite_step"] - 1
    assert not _problems(focal.run(fixed=True))


def test_mixture_log_of_summed_exps_is_named():
    mon = mixture.run()
    found = _born(mon)
    assert found and found[0].evidence["operation"] == "log(sum(exp))"
    assert "logsumexp" in found[0].fix
    assert not _problems(mixture.run(fixed=True))


# --- variants -------------------------------------------------------------------------------

def _bandit(divide, batch_size=8, steps=300, optimizer=torch.optim.Adam, lr=3e-3):
    """A digits bandit (reward 1 for naming the digit), advantages made by ``divide``."""
    import nndebug as nd
    torch.manual_seed(3)
    x, y = classification()
    policy = nn.Sequential(nn.Linear(64, 32), nn.Tanh(), nn.Linear(32, 10))
    opt = optimizer(policy.parameters(), lr=lr)
    with nd.watch(policy, opt) as mon:
        for states, labels in batches(x, y, steps, batch_size=batch_size, seed=5):
            logits = policy(states)
            actions = advantages.sampled_actions(logits)
            rewards = (actions == labels).float()
            weights = divide(rewards - rewards.mean(), rewards)
            log_probs = F.log_softmax(logits, 1).gather(1, actions[:, None]).squeeze(1)
            loss = -(log_probs * weights).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            mon.step(loss)
    return mon


def test_function_form_small_batches_and_sgd():
    mon = _bandit(lambda centred, r: centred / torch.std(r), optimizer=torch.optim.SGD,
                  lr=0.1)
    found = _born(mon)
    assert found and found[0].evidence["operation"] == "x / std"


def test_square_root_of_a_variance_is_a_bare_spread():
    mon = _bandit(lambda centred, r: centred / torch.sqrt(r.var()))
    found = _born(mon)
    assert found and found[0].evidence["operation"] == "x / sqrt(var)"


def test_guarded_spreads_are_silent():
    for divide in (lambda c, r: c / (r.std() + 1e-8),
                   lambda c, r: c / r.std().clamp_min(1e-8)):
        mon = _bandit(divide)
        assert mon.run.observed.fragile_operations == []
        assert not _problems(mon)


def test_binary_focal_on_sigmoids():
    """p ** gamma on the negatives, (1 - p) ** gamma on the positives (kornia's binary form),
    gamma 0.25, SGD with momentum: named when it turns NaN."""
    import nndebug as nd
    torch.manual_seed(0)
    x, y = classification()
    target = (y == 0).float()
    model = mlp(outputs=1)
    opt = torch.optim.SGD(model.parameters(), lr=0.5, momentum=0.9)
    with nd.watch(model, opt) as mon:
        for xb, yb in batches(x, target, 600):
            p = torch.sigmoid(model(xb).squeeze(1))
            loss = -(yb * (1 - p) ** 0.25 * torch.log(p.clamp_min(1e-6)) +
                     (1 - yb) * p ** 0.25 * torch.log((1 - p).clamp_min(1e-6))).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            mon.step(loss)
    kept = [d for _, _, d, _ in mon.run.observed.fragile_operations]
    assert "(1 - sigmoid) ** 0.25" in kept and "sigmoid ** 0.25" in kept
    losses = np.asarray(list(mon.run.losses), dtype=float)
    if not np.isfinite(losses).all():         # it went NaN: the power is named
        assert [f.code for f in _born(mon)] == ["NAN_BORN_IN_BACKWARD"]
    else:                                     # it stayed finite: nothing said
        assert not _born(mon)


# --- healthy look-alikes ------------------------------------------------------------------

def test_bare_std_over_values_never_equal_says_nothing():
    """Standardising continuous targets per batch by a bare std: the structure is kept, no
    NaN ever comes, nothing is said."""
    import nndebug as nd
    torch.manual_seed(0)
    x, y = regression()
    model = mlp(outputs=1)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, opt) as mon:
        for xb, yb in batches(x, y + 0.01 * torch.randn(len(y)), 200):
            out = model(xb).squeeze(1)     # the origin watch sees the calls after it
            loss = F.mse_loss(out, (yb - yb.mean()) / yb.std())
            opt.zero_grad()
            loss.backward()
            opt.step()
            mon.step(loss)
    assert [d for _, _, d, _ in mon.run.observed.fragile_operations] == ["x / std"]
    assert not _born(mon) and not _problems(mon)


def test_learning_rate_blow_up_is_not_blamed_on_a_bare_std():
    import nndebug as nd
    torch.manual_seed(0)
    x, y = regression()
    model = mlp(outputs=1)
    opt = torch.optim.SGD(model.parameters(), lr=2.0)
    with nd.watch(model, opt) as mon:
        for xb, yb in batches(x, y, 200):
            out = model(xb).squeeze(1)
            scale = yb.std()
            loss = F.mse_loss(out / scale, yb / scale)
            opt.zero_grad()
            loss.backward()
            opt.step()
            mon.step(loss)
    losses = np.asarray(list(mon.run.losses), dtype=float)
    assert not np.isfinite(losses).all()       # it did blow up
    assert not [f for f in _born(mon) if f.evidence.get("operation") == "x / std"]


# --- the structure tests on hand-made graphs ------------------------------------------------

def test_fractional_powers_of_probabilities():
    z = torch.randn(4, 3, requires_grad=True)
    p = torch.sigmoid(z)
    pt = F.log_softmax(z, 1).exp()
    assert fractional_power_of_probability(((1 - p) ** 0.5).grad_fn, p.dtype) == \
        "(1 - sigmoid) ** 0.5"
    assert fractional_power_of_probability((1 - pt).pow(0.3).grad_fn, p.dtype) == \
        "(1 - softmax) ** 0.3"
    assert fractional_power_of_probability(torch.sqrt(1 - torch.softmax(z, 1)).grad_fn,
                                           p.dtype) == "(1 - softmax) ** 0.5"
    # a clamp whose bound is lost in float32 guards nothing (1 - 1e-9 is 1.0)
    assert fractional_power_of_probability(
        ((1 - p.clamp(max=1 - 1e-9)) ** 0.5).grad_fn, p.dtype) == "(1 - sigmoid) ** 0.5"
    for guarded in ((1 - p).clamp_min(1e-6) ** 0.5, (1 - p + 1e-6) ** 0.5,
                    (1 - p) ** 2, (1 - p) ** 1.0, z.abs() ** 0.5,
                    (1 - p.clamp(max=1 - 1e-6)) ** 0.5):
        assert fractional_power_of_probability(guarded.grad_fn, p.dtype) is None


def test_logs_of_summed_exps():
    a = torch.randn(4, 5, requires_grad=True)
    w = F.log_softmax(torch.randn(4, 5, requires_grad=True), 1)
    assert log_of_summed_exps(torch.log((w.exp() * a.exp()).sum(1)).grad_fn) == \
        "log(sum(exp))"
    assert log_of_summed_exps(torch.log(a.exp().mean(1)).grad_fn) == "log(mean(exp))"
    shifted = a - a.max(1, keepdim=True).values.detach()
    for guarded in (torch.logsumexp(w + a, 1), torch.log(shifted.exp().sum(1)),
                    torch.log(torch.softmax(a, 1).sum(1)), torch.log(a.abs().sum(1) + 1)):
        node = guarded.grad_fn
        assert node is None or log_of_summed_exps(node) is None


def test_steady_before_reads_signed_losses():
    assert _steady_before(np.array([]))
    # a policy-gradient loss crossing 0: steady
    assert _steady_before(np.array([-0.02, 0.03, -0.01, 0.02, 0.023]))
    # a positive loss that grew a thousandfold: a blow-up
    assert not _steady_before(np.array([1.0, 3.0, 40.0, 900.0, 2e3]))
    # a signed loss whose last value is far past its typical size: a climb
    assert not _steady_before(np.array([-0.02, 0.03, -0.01, 0.02, 5.0]))
    assert math.isclose(float(np.median(np.abs([1.0, -1.0]))), 1.0)


# --- saved rows ---------------------------------------------------------------------------

def test_saved_and_loaded_rows_read_back(tmp_path):
    import nndebug as nd
    path = tmp_path / "run.nddebug"
    mon = advantages.run(steps=30)
    mon.findings()
    kept = mon.run.observed.fragile_operations
    assert kept and kept[0][1:3] == ("forward", "x / std")
    mon.save(path)
    observed = nd.load_run(path).run.observed
    assert [list(r) for r in observed.fragile_operations] == [list(r) for r in kept]
