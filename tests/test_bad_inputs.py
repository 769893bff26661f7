"""Bad and unusual inputs: a correct result, or one clear line (TypeError/ValueError naming
the argument, what was expected, what was found) - never a silently wrong answer, never a
traceback from deep inside a framework - and the user's state unchanged after each call.

The first half pins down the inputs that used to be answered wrongly; the second half
(Hypothesis) generates bad inputs across the public API."""
import numpy as np
import pytest
import torch

import minigrad as mg
import minigrad.nn as mnn
import nndebug as nd
from minigrad.interop import from_torch
from nndebug.adapters import adapt

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def _torch_problem(seed=0):
    torch.manual_seed(seed)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    x = torch.randn(5, 3)
    y = torch.randint(0, 2, (5,))
    return model, x, y, torch.nn.CrossEntropyLoss()


def _minigrad_problem(seed=0):
    model, x, y, _ = _torch_problem(seed)
    return from_torch(model), x.numpy(), y.numpy(), mnn.CrossEntropyLoss()


# --- silently wrong before ----------------------------------------------------------------

def test_compare_refuses_layers_of_different_sizes():
    mm, x, y, _ = _minigrad_problem()
    torch.manual_seed(0)
    wider = torch.nn.Sequential(torch.nn.Linear(3, 5), torch.nn.ReLU(), torch.nn.Linear(5, 2))
    with pytest.raises(ValueError, match=r"differ in size: parameter 0.weight has shape \(4, 3\)"):
        nd.compare(mm, wider, x, y, torch.nn.CrossEntropyLoss())


@pytest.mark.parametrize("bad", ["nan", "inf", "empty"])
def test_compare_never_agrees_on_nan_or_empty_data(bad):
    mm, x, y, _ = _minigrad_problem()
    tm = _torch_problem()[0]
    if bad == "empty":
        x, y = x[:0], y[:0]
    else:
        x = x.copy()
        x[1, 2] = np.nan if bad == "nan" else np.inf
    with mg.bugs.plant(mg.bugs.catalogue()[0].name):
        with pytest.raises(ValueError, match="NaN or Inf|empty batch"):
            nd.compare(mm, tm, x, y, torch.nn.CrossEntropyLoss())


@pytest.mark.parametrize("framework", ["torch", "minigrad"])
@pytest.mark.parametrize("call", ["overfit_one_batch", "find_lr", "revive_dead_neurons",
                                  "gradcheck", "locate"])
def test_an_empty_batch_is_named_as_such(framework, call):
    model, x, y, loss_fn = (_torch_problem if framework == "torch" else _minigrad_problem)()
    x, y = x[:0], y[:0]
    state = adapt(model).capture_state()
    with pytest.raises(ValueError, match=r"empty batch \(shape \(0, 3\)\)"):
        if call == "find_lr":
            nd.find_lr(model, loss_fn, [(x, y)] * 10, steps=10)
        elif call == "revive_dead_neurons":
            nd.revive_dead_neurons(model, x)
        else:
            getattr(nd, call)(model, x, y, loss_fn)
    assert adapt(model).state_differences(state) == []


# --- one clear line instead of a traceback or a misleading message ---------------------------

MIXED = {
    "minigrad model, torch loss": lambda: nd.gradcheck(*_minigrad_problem()[:3], torch.nn.CrossEntropyLoss()),
    "minigrad model, torch inputs": lambda: nd.locate(_minigrad_problem()[0], torch.randn(5, 3),
                                                      _minigrad_problem()[2], mnn.CrossEntropyLoss()),
    "torch model, minigrad inputs": lambda: nd.overfit_one_batch(
        _torch_problem()[0], mg.tensor(np.ones((5, 3), np.float32)), _torch_problem()[2],
        torch.nn.CrossEntropyLoss()),
    "torch model, minigrad loss": lambda: nd.find_lr(
        _torch_problem()[0], mnn.CrossEntropyLoss(), [_torch_problem()[1:3]] * 10, steps=10),
    "minigrad model, torch functional loss": lambda: nd.gradcheck(
        *_minigrad_problem()[:3], torch.nn.functional.cross_entropy),
}


@pytest.mark.parametrize("case", sorted(MIXED))
def test_frameworks_mixed_name_both_frameworks_and_the_conversion(case):
    with pytest.raises(TypeError) as error:
        MIXED[case]()
    message = str(error.value)
    assert "PyTorch" in message and "minigrad" in message and "\n" not in message
    assert "convert" in message or "use the loss" in message


@pytest.mark.parametrize("call", ["gradcheck", "locate", "overfit_one_batch"])
def test_a_negative_seed_names_the_argument(call):
    with pytest.raises(ValueError, match="seed must be a non-negative integer, got -1"):
        getattr(nd, call)(*_torch_problem(), seed=-1)


def test_none_inputs_name_the_argument():
    model, _, y, loss_fn = _torch_problem()
    with pytest.raises(TypeError, match="inputs is None"):
        nd.overfit_one_batch(model, None, y, loss_fn)


@pytest.mark.parametrize("model", [torch.nn.Tanh(), "frozen"])
def test_find_lr_on_a_model_with_nothing_to_train(model):
    if model == "frozen":
        model = _torch_problem()[0].requires_grad_(False)
    _, x, y, loss_fn = _torch_problem()
    with pytest.raises(ValueError, match="no trainable parameters"):
        nd.find_lr(model, loss_fn, [(x, y)] * 10, steps=10)


def test_numpy_scalars_are_numbers():
    model, x, y, loss_fn = _torch_problem()
    res = nd.overfit_one_batch(model, x, y, loss_fn, steps=np.int64(20), lr=np.float32(0.01),
                               diagnose=False, seed=np.int32(1))
    assert res.steps == 20 and isinstance(res.steps, int)
    res = nd.find_lr(model, loss_fn, [(x, y)] * 10, steps=np.int64(10), start_lr=np.float32(1e-5),
                     end_lr=np.float64(1.0))
    assert len(res.lrs) >= 1
    assert nd.gradcheck(model, x, y, loss_fn, seed=np.int64(2)).passed


def test_a_float_model_fed_integers_is_told_to_convert():
    model, _, y, loss_fn = _torch_problem()
    ints = torch.randint(0, 3, (5, 3))
    for call in (lambda: nd.gradcheck(model, ints, y, loss_fn),
                 lambda: nd.overfit_one_batch(model, ints, y, loss_fn, steps=5),
                 lambda: nd.find_lr(model, loss_fn, [(ints, y)] * 10, steps=10)):
        with pytest.raises(TypeError, match="inputs are int64 but the model computes in float32"):
            call()


def test_check_data_accepts_class_names():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((60, 3))
    balanced = nd.check_data(x, np.array(["cat", "dog", "bird"] * 20))
    assert not [f for f in balanced if f.severity != "info"]
    skewed = nd.check_data(x, np.array(["cat"] * 58 + ["dog"] * 2))
    assert [f.code for f in skewed] == ["CLASS_IMBALANCE"]
