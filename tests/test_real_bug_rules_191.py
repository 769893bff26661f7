"""Targets that grow, read from a loss written by hand (real-bug batch 191). The healthy
twin of model_rollouts_not_terminated_at_terminal_states regresses a value network onto
bootstrapped TD targets with ``((value - target) ** 2).mean()``: as the values propagate
from 0 towards 8 the loss rises (0.09 -> 0.43 -> 0.22) and jumps at each sync of the target
copy, and watch said LOSS_DIVERGING and LOSS_OSCILLATING. The moving-target test read loss
modules' calls only; it now falls back to the hand-written error's target magnitude, and a
loss over grown targets is measured against the level it grew to. A hand-written regression
on fixed targets that does diverge is still named."""
import pytest

torch = pytest.importorskip("torch")

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import model_rollouts_not_terminated_at_terminal_states as rollouts  # noqa: E402,E501

pytestmark = pytest.mark.usefixtures("one_torch_thread")

CURVE_CODES = {"LOSS_DIVERGING", "LOSS_OSCILLATING"}


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in ("warning", "error")}


def test_the_td_twin_with_a_handwritten_loss_is_silent():
    mon = rollouts.run(fixed=True)
    assert mon.held_out_value_rmse < 1.0          # the twin learns the values
    assert not _problems(mon)


def _fixed_target_regression(lr, steps=400):
    """A hand-written MSE on one fixed dataset (targets from a fixed function of the
    inputs): the target magnitudes stay put, so the moving-target test must stay out."""
    torch.manual_seed(0)
    x = torch.randn(2048, 8)
    y = (x @ torch.randn(8, 1)).squeeze(1) + 3.0
    net = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.Tanh(), torch.nn.Linear(32, 1))
    optimizer = torch.optim.SGD(net.parameters(), lr=lr)
    with nd.watch(net, optimizer) as mon:
        for step in range(steps):
            i = torch.randint(0, len(x), (64,))
            loss = ((net(x[i]).squeeze(1) - y[i]) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_fixed_targets_are_not_read_as_moving():
    from nndebug.rules.context import Context
    from nndebug.rules.moving_targets import targets_moved_up
    mon = _fixed_target_regression(lr=0.01)
    assert mon.run.observed.handwritten_errors      # the error written by hand was seen
    assert not targets_moved_up(Context(mon.run))
    assert not _problems(mon) & CURVE_CODES


def test_a_handwritten_regression_that_blows_up_is_still_named():
    mon = _fixed_target_regression(lr=0.3)
    assert _problems(mon) & (CURVE_CODES | {"LR_TOO_HIGH", "EXPLODING_GRADIENTS",
                                            "NAN_LOSS"})
