"""Bad inputs, round 3: cases a sweep over the public API still answered with a traceback
from inside NumPy / PIL, a KeyError or AttributeError, or a silently wrong result.

Each case asserts the exception type and that the message names what was found and what
to do; the nndebug cases also assert that the user's model, optimizer and RNG are
unchanged by the failed call."""
import math

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn as nn
import minigrad.nn.functional as F
import minigrad.optim as optim
from minigrad.optim import lr_scheduler


def _raises(kind, call, *phrases):
    """``call()`` raises ``kind`` with a one-line message holding every phrase."""
    with pytest.raises(kind) as caught:
        call()
    message = str(caught.value)
    assert "\n" not in message, message
    for phrase in phrases:
        assert phrase in message, (phrase, message)
    return message


# --- minigrad: tensors and factories --------------------------------------------------------

TENSOR_CASES = {
    # name: (call, exception, phrases the message must hold: what was found, what to do)
    "tensor(None) is no NaN": (lambda: mg.tensor(None), TypeError, ["None", "pass numbers"]),
    "a None inside the data is no NaN": (lambda: mg.tensor(np.array([None, 1.0])), TypeError,
                                         ["None", "replace the missing values"]),
    "eye(-1)": (lambda: mg.eye(-1), ValueError, ["eye", "non-negative int", "-1"]),
    "eye(2.5) is not rounded": (lambda: mg.eye(2.5), ValueError, ["eye", "2.5"]),
    "linspace(steps=-1)": (lambda: mg.linspace(0, 1, -1), ValueError, ["linspace", "steps", "-1"]),
    "linspace(steps=2.5) is not rounded": (lambda: mg.linspace(0, 1, 2.5), ValueError,
                                           ["steps", "2.5"]),
    "zeros_like(list)": (lambda: mg.zeros_like([1, 2]), TypeError, ["list", "pass a minigrad tensor"]),
    "ones_like(None)": (lambda: mg.ones_like(None), TypeError, ["NoneType", "pass a minigrad tensor"]),
    "randn_like(None)": (lambda: mg.randn_like(None), TypeError, ["NoneType", "pass a minigrad tensor"]),
}


@pytest.mark.parametrize("case", sorted(TENSOR_CASES))
def test_tensor_factories_name_the_bad_argument(case):
    call, kind, phrases = TENSOR_CASES[case]
    state = mg.get_rng_state()
    _raises(kind, call, *phrases)
    assert repr(mg.get_rng_state()) == repr(state)


def _x():
    return mg.tensor(np.ones((2, 3), np.float32), requires_grad=True)


OP_CASES = {
    "repeat(-1)": (lambda: _x().repeat(-1, 1), ValueError, ["repeat", "non-negative", "-1"]),
    "clamp('a')": (lambda: _x().clamp("a"), TypeError, ["clamp", "min", "str"]),
    "clamp()": (lambda: _x().clamp(), ValueError, ["clamp", "at least one bound"]),
    "x ** '2' is not x ** 2": (lambda: _x() ** "2", TypeError, ["string", "'2'", "float(text)"]),
    "'2' * x": (lambda: "2" * _x(), TypeError, ["string", "'2'"]),
    "softmax(dim=5)": (lambda: _x().softmax(dim=5), IndexError, ["softmax", "axis 5", "valid"]),
    "log_softmax(dim='a')": (lambda: _x().log_softmax(dim="a"), TypeError, ["log_softmax", "'a'"]),
    "nn.Softmax(dim=5)": (lambda: nn.Softmax(dim=5)(_x()), IndexError, ["softmax", "axis 5"]),
    "einsum spec not first": (lambda: mg.einsum(_x(), _x()), TypeError, ["spec", "Tensor",
                                                                          "mg.einsum(spec"]),
    "einsum sizes clash": (lambda: mg.einsum("ij,jk->ik", _x(), _x()), ValueError,
                           ["'j'", "3 and 2", "same size"]),
    "max of an empty tensor": (lambda: mg.zeros((0, 3)).max(), ValueError, ["empty", "(0, 3)"]),
    "min of an empty axis": (lambda: mg.zeros((2, 0)).amin(axis=1), ValueError, ["empty", "min"]),
    "register_hook(3)": (lambda: _x().register_hook(3), TypeError, ["register_hook", "int",
                                                                    "pass the function"]),
    "cosine_similarity shapes": (lambda: F.cosine_similarity(mg.ones((4, 3)), mg.ones((5, 3))),
                                 ValueError, ["(4, 3)", "(5, 3)", "broadcast"]),
}


@pytest.mark.parametrize("case", sorted(OP_CASES))
def test_ops_name_the_bad_argument(case):
    call, kind, phrases = OP_CASES[case]
    _raises(kind, call, *phrases)


def test_the_fixed_ops_still_compute_what_they_did():
    x = mg.tensor(np.arange(6.0).reshape(2, 3))
    assert np.allclose(x.softmax(dim=-1).data.sum(axis=-1), 1.0)
    assert np.allclose(x.log_softmax(dim=0).data, x.softmax(dim=0).log().data)
    assert mg.zeros((0, 3)).max(axis=1).shape == (0,)
    assert np.allclose(mg.einsum("ij,kj->ik", x, x).data, x.data @ x.data.T)
    assert np.allclose(mg.einsum("ij,j->ij", x, mg.ones(1)).data, x.data)   # 1 broadcasts
    assert mg.eye(np.int64(3)).shape == (3, 3)
    assert mg.linspace(0, 1, np.int32(5)).shape == (5,)
    assert mg.zeros_like(np.ones((2, 2))).shape == (2, 2)
    assert x.repeat(0, 1).shape == (0, 3)


# --- minigrad: layers, losses, optimizers, schedulers ----------------------------------------

LAYER_CASES = {
    "Linear(2.5, 2) is not rounded": (lambda: nn.Linear(2.5, 2), TypeError,
                                      ["in_features", "float 2.5"]),
    "Linear('3', 2)": (lambda: nn.Linear("3", 2), TypeError, ["in_features", "str"]),
    "Linear(0, 2)": (lambda: nn.Linear(0, 2), ValueError, ["in_features", "positive", "0"]),
    "Conv2d(kernel_size=0)": (lambda: nn.Conv2d(3, 4, 0), ValueError, ["kernel_size", "0"]),
    "Conv2d(stride=0)": (lambda: nn.Conv2d(3, 4, 3, stride=0), ValueError, ["stride", "0"]),
    "Conv2d(padding=-1)": (lambda: nn.Conv2d(3, 4, 3, padding=-1), ValueError,
                           ["padding", ">= 0", "-1"]),
    "Conv1d(out_channels=-4)": (lambda: nn.Conv1d(3, -4, 3), ValueError, ["out_channels", "-4"]),
    "MaxPool2d(0)": (lambda: nn.MaxPool2d(0), ValueError, ["MaxPool2d", "kernel_size", "0"]),
    "AvgPool2d(-1)": (lambda: nn.AvgPool2d(-1), ValueError, ["AvgPool2d", "kernel_size", "-1"]),
    "BatchNorm1d(0)": (lambda: nn.BatchNorm1d(0), ValueError, ["BatchNorm1d", "num_features"]),
    "GroupNorm(0, 4)": (lambda: nn.GroupNorm(0, 4), ValueError, ["num_groups", "0"]),
    "CrossEntropyLoss(label_smoothing=2)": (lambda: nn.CrossEntropyLoss(label_smoothing=2.0),
                                            ValueError, ["label_smoothing", "[0, 1]", "2.0"]),
    "SmoothL1Loss(beta=-1)": (lambda: nn.SmoothL1Loss(beta=-1), ValueError, ["beta", "-1"]),
    "MSELoss(target=None) is no NaN": (lambda: nn.MSELoss()(mg.ones((4, 3)), None), TypeError,
                                       ["None"]),
    "param group without params": (lambda: optim.SGD([{"lr": 0.1}], lr=0.1), ValueError,
                                   ["'params'", "['lr']", "model.parameters()"]),
}


@pytest.mark.parametrize("case", sorted(LAYER_CASES))
def test_layers_losses_and_optimizers_name_the_bad_argument(case):
    call, kind, phrases = LAYER_CASES[case]
    _raises(kind, call, *phrases)


def test_pooling_and_conv_defaults_still_build():
    assert nn.MaxPool2d(2)(mg.ones((1, 1, 4, 4))).shape == (1, 1, 2, 2)
    assert nn.AvgPool2d((2, 2), stride=None)(mg.ones((1, 1, 4, 4))).shape == (1, 1, 2, 2)
    assert nn.Conv2d(3, 4, 3, padding="same")(mg.ones((1, 3, 5, 5))).shape == (1, 4, 5, 5)
    assert nn.Linear(np.int64(3), 2).in_features == 3


def _optimizer():
    return optim.SGD(nn.Linear(3, 2).parameters(), lr=0.1)


SCHEDULER_CASES = {
    "StepLR(step_size=0)": (lambda o: lr_scheduler.StepLR(o, step_size=0), ValueError,
                            ["step_size", "positive", "0"]),
    "StepLR(step_size=2.5)": (lambda o: lr_scheduler.StepLR(o, step_size=2.5), ValueError,
                              ["step_size", "2.5"]),
    "CosineAnnealingLR(T_max=0)": (lambda o: lr_scheduler.CosineAnnealingLR(o, T_max=0),
                                   ValueError, ["T_max", "positive", "0"]),
    "LambdaLR(0.5)": (lambda o: lr_scheduler.LambdaLR(o, 0.5), TypeError,
                      ["lr_lambda", "function", "float"]),
    "LambdaLR returning NaN": (lambda o: lr_scheduler.LambdaLR(o, lambda epoch: math.nan),
                               ValueError, ["LambdaLR", "nan", "finite number"]),
    "LambdaLR returning a string": (lambda o: lr_scheduler.LambdaLR(o, lambda epoch: "0.1"),
                                    ValueError, ["'0.1'", "lr_lambda"]),
}


@pytest.mark.parametrize("case", sorted(SCHEDULER_CASES))
def test_schedulers_refuse_bad_schedules_and_leave_the_rate_alone(case):
    call, kind, phrases = SCHEDULER_CASES[case]
    optimizer = _optimizer()
    _raises(kind, lambda: call(optimizer), *phrases)
    assert optimizer.param_groups[0]["lr"] == 0.1


def test_a_rate_gone_bad_later_is_refused_at_that_step():
    optimizer = _optimizer()
    scheduler = lr_scheduler.LambdaLR(optimizer, lambda epoch: 1.0 if epoch < 2 else -1.0)
    scheduler.step()
    _raises(ValueError, scheduler.step, "-0.1", "finite number >= 0")
    assert optimizer.param_groups[0]["lr"] == 0.1


# --- nndebug: counts, tolerances and paths --------------------------------------------------

import torch  # noqa: E402

import nndebug as nd  # noqa: E402
from minigrad.interop import from_torch  # noqa: E402
from nndebug.adapters import adapt  # noqa: E402


def _problem(framework):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    x, y = torch.randn(5, 3), torch.randint(0, 2, (5,))
    if framework == "minigrad":
        return from_torch(model), x.numpy(), y.numpy(), nn.CrossEntropyLoss()
    return model, x, y, torch.nn.CrossEntropyLoss()


COUNT_CASES = {
    # a count of 0 or less used to check nothing and report "passed" / no suspect
    "gradcheck n_samples=0": (nd.gradcheck, {"n_samples": 0}, ValueError, ["n_samples", "0"]),
    "gradcheck n_samples=-1": (nd.gradcheck, {"n_samples": -1}, ValueError, ["n_samples", "-1"]),
    "gradcheck n_directions=0": (nd.gradcheck, {"n_directions": 0}, ValueError,
                                 ["n_directions", "positive"]),
    "gradcheck full_limit=-1": (nd.gradcheck, {"full_limit": -1}, ValueError,
                                ["full_limit", "non-negative"]),
    "gradcheck tensor_budget=-1": (nd.gradcheck, {"tensor_budget": -1}, ValueError,
                                   ["tensor_budget", "-1"]),
    "gradcheck n_samples=2.5": (nd.gradcheck, {"n_samples": 2.5}, TypeError,
                                ["n_samples", "float 2.5", "pass e.g."]),
    "locate n_samples=0": (nd.locate, {"n_samples": 0}, ValueError, ["n_samples", "0"]),
    "locate n_directions=-2": (nd.locate, {"n_directions": -2}, ValueError, ["n_directions", "-2"]),
}


def _state(model):
    adapter = adapt(model)
    return adapter, adapter.capture_state(), torch.get_rng_state(), np.random.get_state()[1].copy()


def _unchanged(before):
    adapter, state, torch_rng, numpy_rng = before
    assert adapter.state_differences(state) == []
    assert torch.equal(torch.get_rng_state(), torch_rng)
    assert np.array_equal(np.random.get_state()[1], numpy_rng)


@pytest.mark.parametrize("framework", ["torch", "minigrad"])
@pytest.mark.parametrize("case", sorted(COUNT_CASES))
def test_counts_that_would_check_nothing_are_refused(framework, case):
    call, options, kind, phrases = COUNT_CASES[case]
    model, x, y, loss_fn = _problem(framework)
    before = _state(model)
    _raises(kind, lambda: call(model, x, y, loss_fn, **options), *phrases)
    _unchanged(before)


@pytest.mark.parametrize("option, value, kind", [("rtol", -1.0, ValueError), ("atol", "a", TypeError),
                                                 ("atol", float("nan"), ValueError)])
def test_compare_refuses_a_tolerance_under_zero_or_not_a_number(option, value, kind):
    torch_model, x, y, loss_fn = _problem("torch")
    minigrad_model = from_torch(torch_model)
    before = _state(torch_model)
    _raises(kind, lambda: nd.compare(minigrad_model, torch_model, x.numpy(), y.numpy(), loss_fn,
                                     **{option: value}), option, ">= 0", "pass e.g.")
    _unchanged(before)


@pytest.fixture(scope="module")
def lr_result():
    model, x, y, loss_fn = _problem("torch")
    return nd.find_lr(model, loss_fn, [(x, y)] * 3, steps=10)


@pytest.mark.parametrize("method", ["plot", "to_csv"])
@pytest.mark.parametrize("where, kind, phrase", [(None, TypeError, "NoneType"),
                                                  (3, TypeError, "int 3"),
                                                  ("folder", ValueError, "is a folder")])
def test_find_lr_results_name_a_path_that_is_no_file(lr_result, tmp_path, method, where, kind,
                                                     phrase):
    path = tmp_path if where == "folder" else where
    _raises(kind, lambda: getattr(lr_result, method)(path), "path", phrase)


def test_find_lr_results_still_write_to_files_and_open_files(lr_result, tmp_path):
    import io
    assert lr_result.to_csv(tmp_path / "lr.csv").exists()
    buffer = io.BytesIO()
    lr_result.plot(buffer)
    assert buffer.getvalue()[:4] == b"\x89PNG"


@pytest.mark.parametrize("framework", ["torch", "minigrad"])
def test_a_dashboard_path_that_is_a_folder_is_refused(framework, tmp_path):
    model, x, y, loss_fn = _problem(framework)
    with nd.watch(model) as monitor:
        monitor.step(1.0)
    _raises(ValueError, lambda: monitor.plot(tmp_path), "is a folder", "nndebug.png")
    assert list(tmp_path.iterdir()) == []


# --- the command line ---------------------------------------------------------------------------

PROBLEM = """
import numpy as np
import minigrad.nn as nn

def make():
    rng = np.random.default_rng(0)
    return dict(model=nn.Linear(3, 2), inputs=rng.standard_normal((8, 3)).astype(np.float32),
                targets=rng.integers(0, 2, 8), loss_fn=nn.CrossEntropyLoss())
"""


@pytest.mark.parametrize("command", ["check", "gradcheck", "lr-find"])
@pytest.mark.parametrize("seed", ["-1", "abc"])
def test_a_bad_seed_on_the_command_line_is_a_usage_error(command, seed, tmp_path, capsys):
    """check used to run every step with seed -1 and report 4 FAILs (exit 1)."""
    from nndebug.cli import main
    target = tmp_path / "problem.py"
    target.write_text(PROBLEM)
    try:
        code = main([command, f"{target}:make", "--seed", seed, *(["--steps", "10"] if command != "gradcheck" else [])])
    except SystemExit as exit_:
        code = exit_.code
    assert code == 2
    error = capsys.readouterr().err
    assert "seed" in error and seed in error and "Traceback" not in error
