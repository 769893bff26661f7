"""Gradients emptied after the optimizer used them are clearing, not clipping
(``monitor/step_snapshot.py``, ``written_after_step``): watch reads ``.grad`` when its own
``step()`` runs, after the optimizer's. A loop that calls ``zero_grad(set_to_none=False)``
before ``mon.step(loss)``, or an optimizer written by hand whose step clears the gradients it
used (real-bug batch 322, adagrad_gradient_cleared_at_wrong_index's twin), held zeros there
and was told GRADIENTS_CLIPPED_AWAY on a healthy run. Both stay silent now; gradients clipped
to nothing before the step are still named."""
import pytest

torch = pytest.importorskip("torch")

import torch.nn.functional as F  # noqa: E402

import nndebug as nd  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")


class SgdThatClears(torch.optim.Optimizer):
    """Plain SGD whose step clears each gradient once it has used it."""

    def __init__(self, params, lr):
        super().__init__(params, {"lr": lr})

    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    p.add_(p.grad, alpha=-group["lr"])
                    p.grad.zero_()


def train(make_optimizer, step_ends, steps=160, zero_first=False):
    torch.manual_seed(0)
    x = torch.randn(512, 10)
    y = (x[:, 0] + x[:, 1] > 0).long()
    model = torch.nn.Sequential(torch.nn.Linear(10, 32), torch.nn.ReLU(),
                                torch.nn.Linear(32, 2))
    optimizer = make_optimizer(model.parameters())
    with nd.watch(model, optimizer) as mon:
        for _ in range(steps):
            rows = torch.randint(0, 512, (32,))
            if zero_first:
                optimizer.zero_grad()
            loss = F.cross_entropy(model(x[rows]), y[rows])
            loss.backward()
            step_ends(model, optimizer)
            mon.step(loss)
    return mon


def clipped_away(mon):
    return [f for f in mon.findings() if f.code == "GRADIENTS_CLIPPED_AWAY"]


def test_zeros_filled_after_the_step_are_not_clipping():
    def ends(model, optimizer):
        optimizer.step()
        optimizer.zero_grad(set_to_none=False)
    assert not clipped_away(train(lambda p: torch.optim.SGD(p, lr=0.1), ends))


def test_an_optimizer_that_clears_what_it_used_is_not_clipping():
    def ends(model, optimizer):
        optimizer.step()
    mon = train(lambda p: SgdThatClears(p, lr=0.1), ends)
    assert not clipped_away(mon), mon.findings()


def test_gradients_clipped_to_nothing_before_the_step_are_still_named():
    """The loop zeroes its gradients when the next step starts (``zero_grad`` after
    ``mon.step``). A loop that fills them with zeros after the step as well loses this
    reading: both writes look alike from ``.grad`` (a known limit)."""
    def ends(model, optimizer):
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.0)
        optimizer.step()
    mon = train(lambda p: torch.optim.SGD(p, lr=0.1), ends, zero_first=True)
    assert clipped_away(mon), mon.findings()
