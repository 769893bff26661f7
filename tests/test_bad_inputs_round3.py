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
