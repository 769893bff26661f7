"""nndebug.locate: names the faulty module (and on minigrad the faulty primitive) first,
and names nothing on correct models."""
import numpy as np
import pytest
import torch

import minigrad as mg
import minigrad.nn as mnn
from minigrad.ops import REGISTRY
import nndebug as nd

from gradcheck_models import (HEALTHY_KINDS, TORCH_BUGS, minigrad_healthy, minigrad_model_for,
                              torch_buggy, torch_healthy)


pytestmark = pytest.mark.usefixtures("one_torch_thread")


CATALOGUE = mg.bugs.catalogue()


def test_the_catalogue_is_there():
    assert len(CATALOGUE) >= 20
    assert {"matmul", "relu", "engine"} <= {bug.op for bug in CATALOGUE}


@pytest.mark.parametrize("bug", CATALOGUE, ids=[bug.name for bug in CATALOGUE])
def test_every_catalogue_bug_is_detected_and_its_primitive_named_first(bug):
    model, x, y, loss_fn = minigrad_model_for(bug.op, seed=2)
    with mg.bugs.plant(bug.name):
        report = nd.gradcheck(model, x, y, loss_fn)
        found = nd.locate(model, x, y, loss_fn)
    assert not report.passed, f"{bug.name}: gradcheck passed\n{report}"
    assert found.suspects, f"{bug.name}: no suspects\n{found}"
    top = found.suspects[0]
    assert top.op == bug.op, f"{bug.name}: expected op {bug.op}\n{found}"
    modules = dict(model.named_modules())
    assert top.module in modules
    if bug.op == "engine":
        assert "engine" in top.evidence and "passes alone" in top.evidence
    # the same model without the bug: no gradient disagrees, nobody is suspected
    assert nd.gradcheck(model, x, y, loss_fn).passed
    assert nd.locate(model, x, y, loss_fn).suspects == []


def test_primitives_of_the_loss_are_located_in_the_loss():
    model, x, y, loss_fn = minigrad_model_for("cross_entropy")
    with mg.bugs.plant("cross_entropy_missing_batch_mean"):
        top = nd.locate(model, x, y, loss_fn).suspects[0]
    assert (top.module, top.op, top.location, top.wrt) == ("", "cross_entropy", "loss", "input")
    assert "loss function" in top.evidence


def test_a_bug_planted_by_hand_in_the_registry_is_found():
    # no catalogue entry for exp: swap its backward directly
    class Softplus(mnn.Module):
        def forward(self, x):
            return (x.exp() + 1.0).log()

    model = mnn.Sequential(mnn.Linear(5, 6), Softplus(), mnn.Linear(6, 3))
    rng = np.random.default_rng(0)
    x, y = mg.tensor(rng.standard_normal((4, 5))), mg.tensor(rng.integers(0, 3, 4))
    original = REGISTRY["exp"].backward
    try:
        REGISTRY["exp"].backward = staticmethod(lambda ctx, grad: (grad,))   # d e^x/dx = 1 ?
        assert not nd.gradcheck(model, x, y, mnn.CrossEntropyLoss()).passed
        top = nd.locate(model, x, y, mnn.CrossEntropyLoss()).suspects[0]
    finally:
        REGISTRY["exp"].backward = original
    assert (top.module, top.op, top.wrt) == ("1", "exp", "input")


def test_a_wrong_user_function_in_minigrad_is_named_by_its_module():
    class Cube(mg.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return (2 * x * x * grad,)           # bug: 3 x^2

    class CubeLayer(mnn.Module):
        def forward(self, x):
            return Cube.apply(x)

    model = mnn.Sequential(mnn.Linear(4, 5), CubeLayer(), mnn.Linear(5, 2))
    rng = np.random.default_rng(1)
    x, y = mg.tensor(rng.standard_normal((6, 4))), mg.tensor(rng.integers(0, 2, 6))
    top = nd.locate(model, x, y, mnn.CrossEntropyLoss()).suspects[0]
    assert (top.module, top.op) == ("1", None)
    assert "Cube" in top.evidence


@pytest.mark.parametrize("kind", TORCH_BUGS)
def test_planted_torch_bugs_are_located_to_their_module(kind):
    model, x, y, loss_fn, culprit = torch_buggy(kind)
    found = nd.locate(model, x, y, loss_fn)
    assert found.suspects and found.suspects[0].module == culprit, str(found)
    assert found.suspects[0].op is None
    # the layers before the culprit get wrong gradients too, but are not suspected
    assert all(s.module == culprit for s in found.suspects), str(found)


def test_the_wrong_parameter_is_named():
    model, x, y, loss_fn, culprit = torch_buggy("transposed_weight")
    top = nd.locate(model, x, y, loss_fn).suspects[0]
    assert (top.module, top.wrt) == (culprit, "weight")
    assert top.rel_error > 1e-2


def test_functional_code_in_the_root_forward_is_the_root_module():
    import gradcheck_models

    bad_tanh = gradcheck_models._functions()[1]

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = torch.nn.Linear(5, 6)
            self.b = torch.nn.Linear(6, 3)

        def forward(self, x):
            return self.b(bad_tanh.apply(self.a(x)))

    torch.manual_seed(0)
    x, y = torch.randn(5, 5), torch.randint(0, 3, (5,))
    found = nd.locate(Net(), x, y, torch.nn.CrossEntropyLoss())
    assert [s.module for s in found.suspects] == [""], str(found)
    assert "root" in str(found)


def test_a_container_is_not_blamed_for_its_child():
    model, x, y, loss_fn, _ = torch_buggy("wrong_derivative")
    outer = torch.nn.Sequential(torch.nn.Sequential(model[0], model[1]), model[2])
    found = nd.locate(outer, x, y, loss_fn)
    assert [s.module for s in found.suspects] == ["0.1"], str(found)
    verdicts = {v.name: v.passed for v in found.calls if not v.is_loss}
    assert verdicts[""] is False and verdicts["0"] is False and verdicts["0.1"] is False
    assert verdicts["0.0"] is True and verdicts["1"] is True


def test_a_module_called_twice_is_checked_on_each_call():
    model, x, y, loss_fn, _ = torch_buggy("wrong_derivative")

    class Twice(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc, self.act, self.out = torch.nn.Linear(5, 5), model[1], torch.nn.Linear(5, 3)

        def forward(self, v):
            return self.out(self.act(self.fc(self.act(v))))

    found = nd.locate(Twice(), x, y, loss_fn)
    assert {s.module for s in found.suspects} == {"act"}
    assert {v.index for v in found.calls if v.name == "act" and not v.passed} == {0, 1}


@pytest.mark.parametrize("framework", ["torch", "minigrad"])
@pytest.mark.parametrize("kind", HEALTHY_KINDS)
def test_no_suspects_on_correct_models(framework, kind):
    build = torch_healthy if framework == "torch" else minigrad_healthy
    model, x, y, loss_fn = build(kind, seed=4)
    found = nd.locate(model, x, y, loss_fn)
    assert found.suspects == [], str(found)
    assert "no suspects" in str(found)
    assert all(not v.error for v in found.calls)


def test_engine_bug_in_a_torch_free_model_reports_the_engine():
    model, x, y, loss_fn = minigrad_model_for("engine")
    with mg.bugs.plant("engine_overwrites_reused_gradient"):
        found = nd.locate(model, x, y, loss_fn)
    top = found.suspects[0]
    assert (top.module, top.op) == ("1", "engine")
    assert "self-test fails" in top.evidence


def test_locate_is_fast_on_a_small_model():
    model, x, y, loss_fn, _ = torch_buggy("dropped_skip")
    found = nd.locate(model, x, y, loss_fn)
    assert found.seconds < 5 and found.n_forward <= 3
