"""GRADIENTS_DISCARDED when every .grad is None at the optimizer's step (real-bug batch 179).
A BYOL trainer called zero_grad() between backward() and step(): the optimizer skipped every
parameter and nothing moved; watch said PARAMS_NOT_UPDATING (the symptom) as it came. The
record is taken at watch's step(), after the optimizer's, so a healthy loop that zeroes
right after optimizer.step() shows None there too: it stays silent, because its weights
moved."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import byol_trainer_zeroes_gradients_before_the_step as byol  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def _codes(mon):
    return {f.code for f in mon.findings() if f.severity in ("warning", "error")}


def test_the_byol_case_is_named_and_its_twin_is_not():
    assert "GRADIENTS_DISCARDED" in _codes(byol.run())
    assert not _codes(byol.run(fixed=True))


def _train(order, steps=40, optimizer_class=torch.optim.SGD):
    torch.manual_seed(0)
    x, y = torch.randn(512, 10), torch.randint(0, 3, (512,))
    model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 3))
    optimizer = optimizer_class(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer) as mon:
        for step in range(steps):
            rows = slice(32 * (step % 16), 32 * (step % 16 + 1))
            loss = nn.functional.cross_entropy(model(x[rows]), y[rows])
            if order == "zero_before_step":
                loss.backward()
                optimizer.zero_grad()           # the bug: the optimizer finds nothing
                optimizer.step()
            else:                               # healthy: zeroed once the step is done
                loss.backward()
                optimizer.step()
                optimizer.zero_grad()
            mon.step(loss)
    return mon


@pytest.mark.parametrize("optimizer_class", [torch.optim.SGD, torch.optim.AdamW])
def test_zero_grad_between_backward_and_step_is_named(optimizer_class):
    assert "GRADIENTS_DISCARDED" in _codes(_train("zero_before_step",
                                                  optimizer_class=optimizer_class))


@pytest.mark.parametrize("optimizer_class", [torch.optim.SGD, torch.optim.AdamW])
def test_zero_grad_right_after_the_step_is_silent(optimizer_class):
    assert "GRADIENTS_DISCARDED" not in _codes(_train("zero_after_step",
                                                      optimizer_class=optimizer_class))
