"""Optimizers and LR schedulers against torch.optim, step by step, in float64.

Both frameworks start from the same parameters and, at every step, receive the
same gradients: a smooth function of the *current* parameters plus fixed noise,
so any difference in an update would also change every later gradient. One
parameter sometimes has no gradient (it must then be skipped, state untouched).
"""
import copy
import math

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn as nn
from minigrad import optim

torch = pytest.importorskip("torch")

STEPS = 25
SHAPES = [(3, 4), (4,), (2, 2, 3)]


def _gradient(values, noise):
    return np.sin(3 * values) + 0.3 * values + noise


def _params(rng):
    start = [rng.normal(size=s) for s in SHAPES]
    mine = [nn.Parameter(v.copy(), dtype=np.float64) for v in start]
    theirs = [torch.nn.Parameter(torch.from_numpy(v.copy())) for v in start]
    return mine, theirs


def _set_grads(mine, theirs, step, rng_noise):
    for i, (p, q) in enumerate(zip(mine, theirs)):
        if i == 2 and step % 4 == 1:   # no gradient at this step: the optimizer must skip it
            p.grad, q.grad = None, None
            continue
        g = _gradient(p.data, rng_noise.normal(size=p.shape))
        p.grad = g
        q.grad = torch.from_numpy(g.copy())


def _groups(params, grouped, **extra):
    if not grouped:
        return params
    return [{"params": params[:2]}, {"params": params[2:], "lr": extra.get("second_lr", 0.05)}]


def _run(name, kwargs, grouped=False, steps=STEPS, seed=0):
    rng = np.random.default_rng(seed)
    mine, theirs = _params(rng)
    opt_mine = getattr(optim, name)(_groups(mine, grouped), **kwargs)
    opt_theirs = getattr(torch.optim, name)(_groups(theirs, grouped), **kwargs)
    noise = np.random.default_rng(seed + 1)
    for step in range(steps):
        _set_grads(mine, theirs, step, noise)
        opt_mine.step()
        opt_theirs.step()
        for i, (p, q) in enumerate(zip(mine, theirs)):
            np.testing.assert_allclose(p.data, q.detach().numpy(), rtol=1e-11, atol=1e-13,
                                       err_msg=f"{name}{kwargs} param {i} after step {step}")
    return opt_mine, opt_theirs, mine, theirs


OPTIMIZER_CASES = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.05, momentum=0.9)),
    ("SGD", dict(lr=0.05, momentum=0.9, dampening=0.3)),
    ("SGD", dict(lr=0.05, momentum=0.8, nesterov=True, weight_decay=0.01)),
    ("SGD", dict(lr=0.02, weight_decay=0.1, maximize=True)),
    ("Adam", dict()),
    ("Adam", dict(lr=0.01, betas=(0.5, 0.9), eps=1e-6)),
    ("Adam", dict(lr=0.01, weight_decay=0.1)),
    ("Adam", dict(lr=0.02, amsgrad=True)),
    ("Adam", dict(lr=0.02, amsgrad=True, weight_decay=0.05, maximize=True)),
    ("AdamW", dict()),
    ("AdamW", dict(lr=0.01, weight_decay=0.1)),
    ("AdamW", dict(lr=0.01, weight_decay=0.1, amsgrad=True, betas=(0.8, 0.99))),
    ("RMSprop", dict()),
    ("RMSprop", dict(lr=0.005, alpha=0.9, centered=True)),
    ("RMSprop", dict(lr=0.005, momentum=0.9)),
    ("RMSprop", dict(lr=0.005, alpha=0.4, centered=True, momentum=0.5, weight_decay=0.01)),
    ("RMSprop", dict(lr=0.001, eps=1e-4, maximize=True)),
]


@pytest.mark.parametrize("name,kwargs", OPTIMIZER_CASES,
                         ids=[f"{n}-{i}" for i, (n, _) in enumerate(OPTIMIZER_CASES)])
def test_optimizer_follows_torch(name, kwargs):
    _run(name, kwargs)


@pytest.mark.parametrize("name", ["SGD", "Adam", "RMSprop"])
def test_param_groups_with_their_own_lr_follow_torch(name):
    kwargs = dict(lr=0.03, momentum=0.5) if name != "Adam" else dict(lr=0.03)
    opt_mine, opt_theirs, _, _ = _run(name, kwargs, grouped=True)
    assert [g["lr"] for g in opt_mine.param_groups] == [0.03, 0.05]
    for mine, theirs in zip(opt_mine.param_groups, opt_theirs.param_groups):
        for key, value in mine.items():
            if key != "params":
                assert key in theirs, key      # torch's names for every hyper-parameter
                assert value == theirs[key], key


def test_state_matches_torch_layout_and_skips_params_without_grad():
    opt_mine, opt_theirs, mine, theirs = _run("Adam", dict(amsgrad=True), steps=6)
    for p, q in zip(mine, theirs):
        state, their_state = opt_mine.state[p], opt_theirs.state[q]
        assert set(state) == set(their_state)
        assert state["step"] == float(their_state["step"])
        for key in ("exp_avg", "exp_avg_sq", "max_exp_avg_sq"):
            np.testing.assert_allclose(state[key], their_state[key].numpy(), rtol=1e-11)
    assert opt_mine.state[mine[2]]["step"] == 4    # skipped at steps 1 and 5
    mine_sd, theirs_sd = opt_mine.state_dict(), opt_theirs.state_dict()
    assert list(mine_sd["state"]) == list(theirs_sd["state"])
    assert [g["params"] for g in mine_sd["param_groups"]] == \
        [g["params"] for g in theirs_sd["param_groups"]]


@pytest.mark.parametrize("name,kwargs", [("SGD", dict(lr=0.05, momentum=0.9, nesterov=True)),
                                         ("Adam", dict(lr=0.01, amsgrad=True)),
                                         ("AdamW", dict(lr=0.01)),
                                         ("RMSprop", dict(centered=True, momentum=0.3))])
def test_state_dict_round_trip_resumes_exactly(name, kwargs):
    rng = np.random.default_rng(4)
    params, _ = _params(rng)
    twin = [nn.Parameter(p.data.copy(), dtype=np.float64) for p in params]
    opt = getattr(optim, name)(params, **kwargs)
    noise = np.random.default_rng(5)
    for step in range(8):
        for p in params:
            p.grad = _gradient(p.data, noise.normal(size=p.shape))
        opt.step()
    saved = opt.state_dict()
    snapshot = copy.deepcopy(saved)
    for p, q in zip(params, twin):
        q.data[...] = p.data
    resumed = getattr(optim, name)(twin, lr=123.0)   # hyper-parameters come from the state dict
    resumed.load_state_dict(saved)
    assert resumed.param_groups[0]["lr"] == opt.param_groups[0]["lr"]
    for step in range(8):
        grads = [_gradient(p.data, noise.normal(size=p.shape)) for p in params]
        for p, q, g in zip(params, twin, grads):
            p.grad, q.grad = g, g.copy()
        opt.step()
        resumed.step()
    for p, q in zip(params, twin):
        np.testing.assert_array_equal(p.data, q.data)
    # the saved dict was a deep copy: continuing to train did not change it
    for index, entry in saved["state"].items():
        for key, value in entry.items():
            np.testing.assert_array_equal(value, snapshot["state"][index][key])


def test_load_state_dict_rejects_a_mismatched_optimizer():
    a = optim.SGD([nn.Parameter(np.zeros(2)), nn.Parameter(np.zeros(3))], lr=0.1, momentum=0.9)
    b = optim.SGD([nn.Parameter(np.zeros(2))], lr=0.1, momentum=0.9)
    with pytest.raises(ValueError, match="doesn't match the size"):
        b.load_state_dict(a.state_dict())
    with pytest.raises(ValueError, match="parameter groups"):
        b.load_state_dict({"state": {}, "param_groups": []})


def test_zero_grad_and_closure():
    p = nn.Parameter(np.array([1.0, -2.0]), dtype=np.float64)
    opt = optim.SGD([p], lr=0.1)

    def closure():
        opt.zero_grad()
        loss = (mg.tensor(np.array([3.0, 1.0]), dtype=np.float64) * p * p).sum()
        loss.backward()
        return loss

    loss = opt.step(closure)
    assert loss.item() == pytest.approx(7.0)
    np.testing.assert_allclose(p.data, [1.0 - 0.1 * 6.0, -2.0 + 0.1 * 4.0])
    opt.zero_grad(set_to_none=False)
    assert p.grad is not None and not p.grad.any()
    opt.zero_grad()
    assert p.grad is None


def test_bad_arguments_are_explained():
    p = nn.Parameter(np.zeros(2))
    with pytest.raises(ValueError, match="empty parameter list"):
        optim.SGD([], lr=0.1)
    with pytest.raises(ValueError, match="learning rate"):
        optim.SGD([p], lr=-1)
    with pytest.raises(ValueError, match="Nesterov"):
        optim.SGD([p], lr=0.1, nesterov=True)
    with pytest.raises(ValueError, match="beta parameter at index 1"):
        optim.Adam([p], betas=(0.9, 1.0))
    with pytest.raises(ValueError, match="more than one parameter group"):
        optim.SGD([{"params": [p]}, {"params": [p]}], lr=0.1)
    with pytest.raises(TypeError, match="iterable"):
        optim.Adam(p)
    computed = mg.tensor([1.0], requires_grad=True) * 2
    with pytest.raises(ValueError, match="non-leaf"):
        optim.SGD([computed], lr=0.1)


def test_float32_parameters_stay_float32():
    p = nn.Parameter(np.ones(3, dtype=np.float32))
    opt = optim.Adam([p], lr=0.1)
    p.grad = np.ones(3, dtype=np.float32)
    opt.step()
    assert p.dtype == np.float32 and opt.state[p]["exp_avg"].dtype == np.float32


# --- schedulers ---------------------------------------------------------------------------------
SCHEDULER_CASES = [
    ("StepLR", dict(step_size=3, gamma=0.5)),
    ("MultiStepLR", dict(milestones=[2, 5, 5, 11], gamma=0.3)),
    ("ExponentialLR", dict(gamma=0.9)),
    ("CosineAnnealingLR", dict(T_max=10)),
    ("CosineAnnealingLR", dict(T_max=7, eta_min=0.01)),
    ("LambdaLR", dict(lr_lambda=lambda epoch: 0.95 ** epoch / (1 + epoch % 3))),
    ("LambdaLR", dict(lr_lambda=[lambda e: 1 / (e + 1), lambda e: min(1.0, (e + 1) / 5)])),
]


@pytest.mark.parametrize("name,kwargs", SCHEDULER_CASES,
                         ids=[f"{n}-{i}" for i, (n, _) in enumerate(SCHEDULER_CASES)])
def test_scheduler_follows_torch(name, kwargs):
    p = nn.Parameter(np.zeros(2))
    q = torch.nn.Parameter(torch.zeros(2))
    opt_mine = optim.SGD([{"params": [p]}, {"params": [nn.Parameter(np.zeros(1))], "lr": 0.5}],
                         lr=0.1, momentum=0.9)
    opt_theirs = torch.optim.SGD([{"params": [q]},
                                  {"params": [torch.nn.Parameter(torch.zeros(1))], "lr": 0.5}],
                                 lr=0.1, momentum=0.9)
    mine = getattr(optim.lr_scheduler, name)(opt_mine, **kwargs)
    theirs = getattr(torch.optim.lr_scheduler, name)(opt_theirs, **kwargs)
    assert mine.get_last_lr() == pytest.approx(theirs.get_last_lr(), rel=1e-13)
    for epoch in range(30):
        opt_mine.step()
        opt_theirs.step()
        mine.step()
        theirs.step()
        np.testing.assert_allclose(mine.get_last_lr(), theirs.get_last_lr(), rtol=1e-12,
                                   atol=1e-15, err_msg=f"epoch {epoch}")
        assert [g["lr"] for g in opt_mine.param_groups] == mine.get_last_lr()
    assert mine.last_epoch == theirs.last_epoch == 30


@pytest.mark.parametrize("name,kwargs", [("StepLR", dict(step_size=4, gamma=0.5)),
                                         ("CosineAnnealingLR", dict(T_max=6, eta_min=0.001)),
                                         ("ExponentialLR", dict(gamma=0.7)),
                                         ("MultiStepLR", dict(milestones=[3, 8]))])
def test_scheduler_closed_form_step_with_epoch_matches_torch(name, kwargs):
    import warnings
    opt_mine = optim.SGD([nn.Parameter(np.zeros(1))], lr=0.2)
    opt_theirs = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=0.2)
    mine = getattr(optim.lr_scheduler, name)(opt_mine, **kwargs)
    theirs = getattr(torch.optim.lr_scheduler, name)(opt_theirs, **kwargs)
    for epoch in (5, 2, 9):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs.step(epoch)
        mine.step(epoch)
        assert mine.get_last_lr() == pytest.approx(theirs.get_last_lr(), rel=1e-12)


def test_scheduler_state_dict_round_trip():
    def make():
        opt = optim.Adam([nn.Parameter(np.zeros(1))], lr=0.1)
        return opt, optim.lr_scheduler.CosineAnnealingLR(opt, T_max=10)

    opt, sched = make()
    for _ in range(4):
        opt.step()
        sched.step()
    saved_opt, saved_sched = opt.state_dict(), sched.state_dict()
    assert "optimizer" not in saved_sched
    opt2, sched2 = make()
    opt2.load_state_dict(saved_opt)
    sched2.load_state_dict(saved_sched)
    for _ in range(5):
        sched.step()
        sched2.step()
        assert sched.get_last_lr() == sched2.get_last_lr()
    lam_opt = optim.SGD([nn.Parameter(np.zeros(1))], lr=1.0)
    lam = optim.lr_scheduler.LambdaLR(lam_opt, lambda e: 0.5 ** e)
    assert lam.state_dict()["lr_lambdas"] == [None]
    assert math.isclose(lam.get_last_lr()[0], 1.0)


# --- gradient clipping ----------------------------------------------------------------------------
@pytest.mark.parametrize("norm_type", [2.0, 1.0, float("inf"), 3.0])
@pytest.mark.parametrize("max_norm", [0.5, 100.0])
def test_clip_grad_norm_matches_torch(norm_type, max_norm):
    rng = np.random.default_rng(8)
    grads = [rng.normal(size=s) for s in SHAPES]
    mine = [nn.Parameter(np.zeros(s), dtype=np.float64) for s in SHAPES]
    theirs = [torch.nn.Parameter(torch.zeros(s, dtype=torch.float64)) for s in SHAPES]
    for p, q, g in zip(mine, theirs, grads):
        p.grad, q.grad = g.copy(), torch.from_numpy(g.copy())
    mine.append(nn.Parameter(np.zeros(2)))   # no gradient: ignored
    total = nn.utils.clip_grad_norm_(mine, max_norm, norm_type)
    expected = torch.nn.utils.clip_grad_norm_(theirs, max_norm, norm_type)
    assert float(total) == pytest.approx(expected.item(), rel=1e-12)
    assert total.item() == pytest.approx(expected.item(), rel=1e-12)
    for p, q in zip(mine, theirs):
        np.testing.assert_allclose(p.grad, q.grad.numpy(), rtol=1e-12)


def test_clip_grad_value_clamps_each_element():
    p = nn.Parameter(np.zeros(4), dtype=np.float64)
    p.grad = np.array([-3.0, -0.5, 0.2, 9.0])
    nn.utils.clip_grad_value_([p], 1.0)
    np.testing.assert_array_equal(p.grad, [-1.0, -0.5, 0.2, 1.0])


# --- property: random hyper-parameters ---------------------------------------------------------------
from hypothesis import given, settings, strategies as st  # noqa: E402


@settings(max_examples=12, deadline=None)
@given(lr=st.floats(1e-4, 0.2), momentum=st.sampled_from([0.0, 0.5, 0.9]),
       dampening=st.sampled_from([0.0, 0.2]), nesterov=st.booleans(),
       weight_decay=st.sampled_from([0.0, 1e-3, 0.1]), seed=st.integers(0, 1000))
def test_sgd_random_hyper_parameters_follow_torch(lr, momentum, dampening, nesterov,
                                                  weight_decay, seed):
    if nesterov and (momentum == 0 or dampening != 0):
        nesterov = False
    _run("SGD", dict(lr=lr, momentum=momentum, dampening=dampening, nesterov=nesterov,
                     weight_decay=weight_decay), steps=20, seed=seed)


@settings(max_examples=12, deadline=None)
@given(name=st.sampled_from(["Adam", "AdamW"]), lr=st.floats(1e-4, 0.1),
       beta1=st.floats(0.0, 0.95), beta2=st.floats(0.5, 0.9999), amsgrad=st.booleans(),
       weight_decay=st.sampled_from([0.0, 1e-2, 0.3]), seed=st.integers(0, 1000))
def test_adam_random_hyper_parameters_follow_torch(name, lr, beta1, beta2, amsgrad, weight_decay,
                                                   seed):
    _run(name, dict(lr=lr, betas=(beta1, beta2), amsgrad=amsgrad, weight_decay=weight_decay),
         steps=20, seed=seed)
