"""nndebug.gradcheck: right verdicts on correct and broken models, on both frameworks,
without touching the user's model, and clear errors on bad input."""
import numpy as np
import pytest
import torch

import minigrad as mg
import minigrad.nn as mnn
import nndebug as nd
from nndebug.adapters import adapt
from nndebug.numeric import spread_indices

from gradcheck_models import (HEALTHY_KINDS, TORCH_BUGS, minigrad_healthy, torch_buggy,
                              torch_healthy)

BUILDERS = {"torch": torch_healthy, "minigrad": minigrad_healthy}


pytestmark = pytest.mark.usefixtures("one_torch_thread")


# --- no false alarm on correct models ------------------------------------------------------

@pytest.mark.parametrize("framework", ["torch", "minigrad"])
@pytest.mark.parametrize("kind", HEALTHY_KINDS)
def test_correct_models_pass_in_auto_mode(framework, kind):
    model, x, y, loss_fn = BUILDERS[framework](kind, seed=3)
    report = nd.gradcheck(model, x, y, loss_fn)
    assert report.passed, str(report)
    assert not [f for f in report.findings if f.severity != "info"]
    assert [c.name for c in report.checks] == [n for n, p in model.named_parameters()]


@pytest.mark.parametrize("framework", ["torch", "minigrad"])
@pytest.mark.parametrize("kind", ["maxpool", "dropout", "batchnorm"])
def test_correct_models_pass_element_by_element(framework, kind):
    model, x, y, loss_fn = BUILDERS[framework](kind, seed=1)
    report = nd.gradcheck(model, x, y, loss_fn, mode="full")
    assert report.passed, str(report)
    assert all(c.n_checked == c.size for c in report.checks)


def test_integer_targets_stay_integer_and_classification_works():
    # the lesson's checker cast targets to float and crashed inside cross-entropy
    model, x, y, loss_fn = torch_healthy("relu")
    assert y.dtype == torch.int64
    report = nd.gradcheck(model, x, y, loss_fn, mode="sample")
    assert report.passed and y.dtype == torch.int64


def test_dropout_gives_the_same_mask_in_every_evaluation():
    # without RNG replay, every finite difference would see another mask and fail
    model, x, y, loss_fn = torch_healthy("dropout")
    report = nd.gradcheck(model, x, y, loss_fn, mode="full")
    assert report.passed, str(report)
    assert max(c.max_rel_error for c in report.checks) < 1e-5


def test_a_kink_is_information_not_a_mismatch():
    # sample 0 is all zeros and bias[2] is 0, so unit 2 sits exactly on ReLU's kink for it
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 5), torch.nn.ReLU(), torch.nn.Linear(5, 3)).double()
    with torch.no_grad():
        model[0].bias[2] = 0.0
    x = torch.randn(6, 4, dtype=torch.float64)
    x[0] = 0.0
    y = torch.tensor([0, 1, 2, 0, 1, 2])
    report = nd.gradcheck(model, x, y, torch.nn.CrossEntropyLoss(), mode="full")
    assert report.passed, str(report)
    bias = next(c for c in report.checks if c.name == "0.bias")
    assert bias.n_kinks >= 1
    kinks = [f for f in report.findings if f.code == "GRADCHECK_KINK"]
    assert kinks and all(f.severity == "info" for f in kinks)


# --- broken models ---------------------------------------------------------------------------

@pytest.mark.parametrize("kind", TORCH_BUGS)
@pytest.mark.parametrize("mode", ["auto", "fast", "sample"])
def test_planted_torch_bugs_fail(kind, mode):
    model, x, y, loss_fn, culprit = torch_buggy(kind)
    report = nd.gradcheck(model, x, y, loss_fn, mode=mode)
    assert not report.passed, str(report)
    codes = {f.code for f in report.findings if f.severity == "error"}
    assert codes == {"BACKWARD_MISMATCH"}
    # a bug in layer k corrupts the parameters before it, never those after it
    layers = {int(c.name.split(".")[0]) for c in report.checks if not c.passed}
    assert layers and max(layers) <= int(culprit)


class _LateScale(torch.autograd.Function):
    """y = x * w; the gradient of w is halved for every element from index 5 on."""

    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(x, w)
        return x * w

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        grad_w = (g * x).sum(0)
        grad_w[5:] = grad_w[5:] * 0.5
        return g * w, grad_w


class _Scale(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.linspace(0.5, 1.5, n))

    def forward(self, x):
        return _LateScale.apply(x, self.weight)


@pytest.mark.parametrize("mode", ["auto", "full", "sample", "fast"])
def test_a_bug_past_the_first_five_elements_is_found(mode):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 12), _Scale(12), torch.nn.Linear(12, 3))
    x, y = torch.randn(8, 4), torch.randint(0, 3, (8,))
    report = nd.gradcheck(model, x, y, torch.nn.CrossEntropyLoss(), mode=mode)
    scale = next(c for c in report.checks if c.name == "1.weight")
    assert not scale.passed and not report.passed
    if mode != "fast":
        assert scale.worst_index[0] >= 5


def test_sampled_elements_are_spread_over_the_tensor():
    rng = np.random.default_rng(0)
    picks = spread_indices(1000, 10, rng)
    assert len(set(picks.tolist())) == 10
    assert picks.min() < 100 and picks.max() >= 900
    assert not np.array_equal(picks, spread_indices(1000, 10, np.random.default_rng(1)))
    assert spread_indices(4, 10, rng).tolist() == [0, 1, 2, 3]


class _IgnoresGrad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return 2 * x

    @staticmethod
    def backward(ctx, g):
        return torch.full_like(g, 2.0)    # bug: the local derivative, not times g


def test_a_backward_that_ignores_grad_output_is_caught():
    # with loss = sum(output) the cotangent is exactly 1, so finite differences agree;
    # only the zero-cotangent rule (0 * L must give 0 gradients) sees the bug
    torch.manual_seed(0)

    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(3, 4)

        def forward(self, x):
            return _IgnoresGrad.apply(self.fc(x))

    x = torch.randn(5, 3)
    report = nd.gradcheck(Model(), x, None, lambda out, _: out.sum(), mode="full")
    assert not report.passed
    assert all(not c.scales_with_grad_output for c in report.checks)
    assert all(c.max_rel_error < 1e-6 for c in report.checks)
    assert "ignores grad_output" in str(report)


def test_minigrad_planted_bug_fails_and_names_tensors():
    model, x, y, loss_fn = minigrad_healthy("float32")
    with mg.bugs.plant("tanh_not_squared"):
        report = nd.gradcheck(model, x, y, loss_fn)
    assert not report.passed
    failed = {c.name for c in report.failed()}
    assert failed == {"0.weight", "0.bias"}, str(report)
    worst = next(c for c in report.checks if c.name == "0.weight")
    assert worst.worst_index is not None and worst.analytic is not None
    assert nd.gradcheck(model, x, y, loss_fn).passed


def test_auto_costs_far_fewer_forward_passes_than_full():
    model, x, y, loss_fn = torch_healthy("relu")
    auto = nd.gradcheck(model, x, y, loss_fn)
    full = nd.gradcheck(model, x, y, loss_fn, mode="full")
    size = sum(p.numel() for p in model.parameters())
    assert full.n_forward >= 2 * size
    assert auto.n_forward < 10 * len(auto.checks) + 10 < full.n_forward


def test_inputs_that_require_grad_are_checked_too():
    model, x, y, loss_fn = torch_healthy("float32")
    x = x.clone().requires_grad_(True)
    report = nd.gradcheck(model, x, y, loss_fn)
    assert [c.name for c in report.checks][-1] == "input" and report.passed
    assert x.grad is None
    mmodel, mx, my, mloss = minigrad_healthy("float32")
    mx = mg.tensor(mx.data, requires_grad=True)
    report = nd.gradcheck(mmodel, mx, my, mloss, mode="sample")
    assert report.checks[-1].name == "input" and report.passed
    assert mx.grad is None


def test_report_reads_as_a_table():
    model, x, y, loss_fn, _ = torch_buggy("wrong_derivative")
    text = str(nd.gradcheck(model, x, y, loss_fn))
    assert "FAILED" in text and "MISMATCH" in text and "0.weight" in text
    assert "forward passes" in text and "BACKWARD_MISMATCH" in text
    model, x, y, loss_fn = torch_healthy("relu")
    text = str(nd.gradcheck(model, x, y, loss_fn))
    assert "PASSED" in text and "MISMATCH" not in text


# --- the user's state ----------------------------------------------------------------------

def _dressed_torch_model():
    """A float32 model in eval mode, with a hook, stale grads and a frozen parameter."""
    model, x, y, loss_fn = torch_healthy("batchnorm")
    model.eval()
    calls = []
    model[0].register_forward_hook(lambda m, i, o: calls.append(1))
    model[0].weight.grad = torch.ones_like(model[0].weight)
    model[3].bias.requires_grad_(False)
    return model, x, y, loss_fn, calls


def _dressed_minigrad_model():
    model, x, y, loss_fn = minigrad_healthy("batchnorm")
    model.eval()
    calls = []
    model[0].register_forward_hook(lambda m, i, o: calls.append(1))
    model[0].weight.grad = np.ones_like(model[0].weight.data)
    model[3].bias.requires_grad = False
    return model, x, y, loss_fn, calls


@pytest.mark.parametrize("dressed", [_dressed_torch_model, _dressed_minigrad_model])
@pytest.mark.parametrize("check", ["gradcheck", "locate"])
def test_user_state_is_bit_for_bit_unchanged(dressed, check):
    model, x, y, loss_fn, calls = dressed()
    adapter = adapt(model)
    state = adapter.capture_state()
    hooks = adapter.hook_counts()
    x_before = adapter.to_numpy(x)
    getattr(nd, check)(model, x, y, loss_fn)
    assert adapter.state_differences(state) == []
    assert adapter.hook_counts() == hooks
    # the user's hook takes part in the check (the copy computes what the model computes)
    assert calls
    assert np.array_equal(adapter.to_numpy(x), x_before)
    assert adapter.float_dtype() == np.float32


@pytest.mark.parametrize("dressed", [_dressed_torch_model, _dressed_minigrad_model])
def test_user_state_is_unchanged_when_a_check_raises(dressed):
    model, x, y, loss_fn, _ = dressed()
    adapter = adapt(model)
    state = adapter.capture_state()
    count = [0]

    def flaky_loss(out, target):
        count[0] += 1
        if count[0] == 5:
            raise RuntimeError("boom")
        return loss_fn(out, target)

    with pytest.raises(RuntimeError, match="boom"):
        nd.gradcheck(model, x, y, flaky_loss)
    assert adapter.state_differences(state) == []
    assert torch.get_default_dtype() == torch.float32
    assert mg.get_default_dtype() == np.float32


def test_user_rng_stream_continues_as_if_nothing_ran():
    model, x, y, loss_fn = torch_healthy("dropout")
    torch.manual_seed(123)
    np.random.seed(5)
    expected = torch.rand(3), np.random.rand()
    torch.manual_seed(123)
    np.random.seed(5)
    nd.gradcheck(model, x, y, loss_fn)
    nd.locate(model, x, y, loss_fn)
    assert torch.equal(torch.rand(3), expected[0]) and np.random.rand() == expected[1]


# --- bad input -----------------------------------------------------------------------------

def test_non_scalar_loss_is_a_clear_error():
    model, x, y, _ = torch_healthy("relu")
    loss = torch.nn.CrossEntropyLoss(reduction="none")
    with pytest.raises(ValueError, match="scalar"):
        nd.gradcheck(model, x, y, loss)
    mmodel, mx, my, _ = minigrad_healthy("relu")
    with pytest.raises(ValueError, match="scalar"):
        nd.gradcheck(mmodel, mx, my, mnn.CrossEntropyLoss(reduction="none"))


def test_model_without_parameters_is_a_clear_error():
    with pytest.raises(ValueError, match="no trainable parameters"):
        nd.gradcheck(torch.nn.ReLU(), torch.randn(3, 2), torch.zeros(3, 2), torch.nn.MSELoss())
    frozen, x, y, loss_fn = torch_healthy("relu")
    frozen.requires_grad_(False)
    with pytest.raises(ValueError, match="no trainable parameters"):
        nd.gradcheck(frozen, x, y, loss_fn)


@pytest.mark.parametrize("framework", ["torch", "minigrad"])
def test_nan_in_inputs_is_a_clear_error(framework):
    model, x, y, loss_fn = BUILDERS[framework]("relu")
    data = np.array(x.detach().numpy() if framework == "torch" else x.data)
    data[1, 2] = np.nan
    with pytest.raises(ValueError, match="NaN.*NAN_IN_INPUTS"):
        nd.gradcheck(model, data, y, loss_fn)
    with pytest.raises(ValueError, match="NaN"):
        nd.locate(model, data, y, loss_fn)


def test_unsupported_model_and_bad_arguments_are_clear_errors():
    model, x, y, loss_fn = torch_healthy("relu")
    with pytest.raises(TypeError, match="torch.nn.Module and minigrad.nn.Module"):
        nd.gradcheck(lambda v: v, x, y, loss_fn)
    with pytest.raises(ValueError, match="mode must be one of"):
        nd.gradcheck(model, x, y, loss_fn, mode="slow")
    with pytest.raises(TypeError, match="loss_fn must be callable"):
        nd.gradcheck(model, x, y, "mse")


def test_numpy_inputs_are_accepted():
    model, x, y, loss_fn = torch_healthy("relu")
    report = nd.gradcheck(model, x.numpy(), y.numpy(), loss_fn)
    assert report.passed
    mmodel, mx, my, mloss = minigrad_healthy("relu")
    assert nd.gradcheck(mmodel, mx.data, my.data, mloss).passed


@pytest.mark.parametrize("framework", ["torch", "minigrad"])
def test_checking_in_float32_uses_float32_tolerances(framework):
    # float64 is the default; a float32 check has its own step and tolerances (numeric.py)
    model, x, y, loss_fn = BUILDERS[framework]("maxpool")
    report = nd.gradcheck(model, x, y, loss_fn, check_dtype=np.float32, mode="sample")
    assert report.passed and report.dtype == "float32", str(report)
    assert nd.locate(model, x, y, loss_fn, check_dtype=np.float32).suspects == []
    bad, bx, by, bloss, culprit = torch_buggy("wrong_derivative")
    assert not nd.gradcheck(bad, bx, by, bloss, check_dtype=np.float32).passed
