"""The checked copy computes what the user's model computes: the user's own forward,
pre-forward, full backward and parameter tensor hooks take part in gradcheck and
locate (a hook that halves gradients must fail the check), on both frameworks, and
nndebug's own hooks (a running monitor's) are never copied."""
import numpy as np
import pytest
import torch

import minigrad as mg
import minigrad.nn as mnn
import nndebug as nd
from nndebug.adapters import adapt

pytestmark = pytest.mark.usefixtures("one_torch_thread")

HOOKS = ("none", "param_half", "module_backward_half", "forward_double", "pre_double")


def _problem(framework):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((5, 4)).astype(np.float32)
    y = rng.integers(0, 3, 5)
    if framework == "torch":
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(4, 6), torch.nn.Tanh(), torch.nn.Linear(6, 3))
        return model, torch.tensor(x), torch.tensor(y), torch.nn.CrossEntropyLoss()
    mg.manual_seed(0)
    model = mnn.Sequential(mnn.Linear(4, 6), mnn.Tanh(), mnn.Linear(6, 3))
    return model, mg.tensor(x), mg.tensor(y), mnn.CrossEntropyLoss()


def _plant(model, hook):
    if hook == "param_half":
        model[0].weight.register_hook(lambda g: g * 0.5)
    elif hook == "module_backward_half":
        model[2].register_full_backward_hook(
            lambda mod, gin, gout: tuple(None if g is None else g * 0.5 for g in gin))
    elif hook == "forward_double":
        model[2].register_forward_hook(lambda mod, inputs, out: out * 2)
    elif hook == "pre_double":
        model[2].register_forward_pre_hook(lambda mod, inputs: (inputs[0] * 2,))


def _real_loss(framework, model, x, y, loss_fn):
    loss = loss_fn(model(x), y)
    return float(loss.detach()) if framework == "torch" else float(loss.item())


@pytest.mark.parametrize("framework", ["torch", "minigrad"])
@pytest.mark.parametrize("hook", HOOKS)
def test_gradcheck_checks_the_network_with_its_hooks(framework, hook):
    model, x, y, loss_fn = _problem(framework)
    _plant(model, hook)
    real = _real_loss(framework, model, x, y, loss_fn)
    before = adapt(model).hook_counts()
    report = nd.gradcheck(model, x, y, loss_fn)
    # the loss that was checked is the loss the model really computes, hooks included
    assert report.loss == pytest.approx(real, rel=1e-5)
    # a hook that changes gradients makes them disagree with finite differences
    assert report.passed == (hook not in ("param_half", "module_backward_half")), str(report)
    assert adapt(model).hook_counts() == before


def test_a_forward_hook_changes_the_checked_loss():
    plain = nd.gradcheck(*_problem("torch"))
    model, x, y, loss_fn = _problem("torch")
    _plant(model, "forward_double")
    doubled = nd.gradcheck(model, x, y, loss_fn)
    assert doubled.loss != pytest.approx(plain.loss, rel=1e-3)


@pytest.mark.parametrize("framework", ["torch", "minigrad"])
@pytest.mark.parametrize("hook,where,wrt", [("param_half", "0", "weight"),
                                            ("module_backward_half", "2", "input")])
def test_locate_names_the_module_whose_hook_changes_gradients(framework, hook, where, wrt):
    model, x, y, loss_fn = _problem(framework)
    _plant(model, hook)
    report = nd.locate(model, x, y, loss_fn)
    assert report.suspects, str(report)
    first = report.suspects[0]
    assert (first.module, first.wrt, first.op) == (where, wrt, None), str(report)
    assert "hook" in first.evidence


@pytest.mark.parametrize("framework", ["torch", "minigrad"])
@pytest.mark.parametrize("hook", ["forward_double", "pre_double"])
def test_locate_stays_quiet_on_hooks_that_keep_gradients_true(framework, hook):
    model, x, y, loss_fn = _problem(framework)
    _plant(model, hook)
    assert not nd.locate(model, x, y, loss_fn).suspects


@pytest.mark.parametrize("framework", ["torch", "minigrad"])
def test_a_monitors_hooks_stay_behind_while_the_users_come_along(framework):
    model, x, y, loss_fn = _problem(framework)
    _plant(model, "forward_double")
    with nd.watch(model):
        copy = adapt(model).private_copy(np.float64)
        counts = copy.hook_counts()
    assert counts["2"] == 1                       # the user's forward hook
    assert sum(counts.values()) == 1              # none of the monitor's


def test_the_copy_can_leave_every_hook_behind():
    model, *_ = _problem("torch")
    _plant(model, "param_half")
    assert sum(adapt(model).private_copy(np.float64, hooks=False).hook_counts().values()) == 0


# --- silently wrong before: parameter-free models, .grad identity, a failing loss ---------

def test_a_parameter_free_model_with_an_input_that_requires_grad_is_checked_in_float64():
    x = torch.randn(4, 3, requires_grad=True)
    y = torch.randn(4, 3)
    report = nd.gradcheck(torch.nn.Tanh(), x, y, torch.nn.MSELoss())
    assert report.passed and [c.name for c in report.checks] == ["input"], str(report)
    assert not nd.locate(torch.nn.Tanh(), x, y, torch.nn.MSELoss()).suspects
    xm = mg.tensor(x.detach().numpy(), requires_grad=True)
    assert nd.gradcheck(mnn.Tanh(), xm, mg.tensor(y.numpy()), mnn.MSELoss()).passed


CALLS = {
    "gradcheck": lambda m, x, y, f: nd.gradcheck(m, x, y, f),
    "locate": lambda m, x, y, f: nd.locate(m, x, y, f),
    "overfit_one_batch": lambda m, x, y, f: nd.overfit_one_batch(m, x, y, f, steps=5,
                                                                 diagnose=False),
    "find_lr": lambda m, x, y, f: nd.find_lr(m, f, [(x, y)] * 3, steps=10),
}


@pytest.mark.parametrize("framework", ["torch", "minigrad"])
@pytest.mark.parametrize("check", sorted(CALLS))
def test_every_grad_is_restored_in_place_keeping_its_identity(framework, check):
    model, x, y, loss_fn = _problem(framework)
    loss_fn(model(x), y).backward()
    before = {n: (p.grad, adapt(model).to_numpy(p.grad)) for n, p in model.named_parameters()}
    CALLS[check](model, x, y, loss_fn)
    for name, p in model.named_parameters():
        assert p.grad is before[name][0], name
        assert np.array_equal(adapt(model).to_numpy(p.grad), before[name][1])


def test_locate_does_not_swallow_an_exception_of_the_loss_function():
    model, x, y, _ = _problem("torch")
    calls = []

    def loss_that_breaks_on_reruns(output, target):
        calls.append(1)
        if len(calls) > 2:
            raise RuntimeError("the loss broke")
        return torch.nn.functional.cross_entropy(output, target)

    with pytest.raises(ValueError, match="loss_fn raised RuntimeError: the loss broke"):
        nd.locate(model, x, y, loss_that_breaks_on_reruns)


def test_a_hook_the_copy_cannot_reproduce_is_named_in_a_warning():
    model, x, y, loss_fn = _problem("torch")
    model[0].weight.register_post_accumulate_grad_hook(lambda p: None)
    with pytest.warns(UserWarning, match="post-accumulate-grad hooks on 0.weight"):
        nd.gradcheck(model, x, y, loss_fn)


def test_gradcheck_points_at_the_users_hook_first():
    model, x, y, loss_fn = _problem("torch")
    _plant(model, "param_half")
    report = nd.gradcheck(model, x, y, loss_fn)
    assert "the model's own hooks change gradients in '0'" in report.findings[0].message


def test_a_users_keyword_pre_hook_comes_along_and_the_monitors_stays_behind():
    """torch keeps a flag table beside its hooks (with_kwargs=True): the user's hook and its
    flag are copied together; the monitor's keyword-aware hook on the model is left behind
    with its flag (a flag without its hook was counted as a hook)."""
    model, x, y, loss_fn = _problem("torch")

    def doubled(module, args, kwargs):
        return (args[0] * 2,), kwargs
    model[0].register_forward_pre_hook(doubled, with_kwargs=True)
    with nd.watch(model):
        copy = adapt(model).private_copy(np.float64)
        counts = copy.hook_counts()
        assert counts[""] == 0                        # the monitor's pre-hook and its flag
        assert counts["0"] == 2                       # the user's hook and its flag
        expected = model(x).detach().double()
        assert torch.allclose(copy.model(x.double()), expected, atol=1e-5)
