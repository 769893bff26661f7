"""GRADIENTS_ACCUMULATING for an optimizer the loop steps besides the watched one
(monitor/other_optimizer_clearing.py, rules/setup.py): a GAN's discriminator never zeroed,
a critic zeroed once per round of critic steps; healthy loops stay silent."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

import nndebug as nd  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def _gan_loop(steps=40, zero_d="every step", critic_steps=1, clip=None, seed=0):
    """A small GAN on 2-D points, watched through the generator's optimizer. ``zero_d``:
    "every step" (healthy), "never", or "once per round" (before the critic's steps)."""
    torch.manual_seed(seed)
    G = nn.Sequential(nn.Linear(4, 32), nn.ReLU(), nn.Linear(32, 2))
    D = nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Linear(32, 1))
    opt_g = torch.optim.Adam(G.parameters(), lr=1e-3)
    opt_d = torch.optim.Adam(D.parameters(), lr=1e-3)
    with nd.watch(G, opt_g) as mon:
        for _ in range(steps):
            if zero_d == "once per round":
                opt_d.zero_grad()
            for _ in range(critic_steps):
                real = torch.randn(64, 2) * 0.5 + 2.0
                fake = G(torch.randn(64, 4)).detach()
                if zero_d == "every step":
                    opt_d.zero_grad()
                d_loss = F.binary_cross_entropy_with_logits(D(real), torch.ones(64, 1)) + \
                    F.binary_cross_entropy_with_logits(D(fake), torch.zeros(64, 1))
                d_loss.backward()
                if clip is not None:
                    nn.utils.clip_grad_norm_(D.parameters(), clip)
                opt_d.step()
            opt_g.zero_grad()
            g_loss = F.binary_cross_entropy_with_logits(D(G(torch.randn(64, 4))),
                                                        torch.ones(64, 1))
            g_loss.backward()
            opt_g.step()
            mon.step(g_loss)
    return mon


def _codes(mon):
    return {f.code for f in mon.findings() if f.severity != "info"}


def _carries(mon):
    return [row[1] for row in mon.run.observed.other_optimizer_carries]


def test_discriminator_never_zeroed_is_named():
    mon = _gan_loop(zero_d="never")
    assert _carries(mon) and set(_carries(mon)) == {"carried"}
    finding = next(f for f in mon.findings() if f.code == "GRADIENTS_ACCUMULATING")
    assert finding.where == "other optimizer"
    assert finding.evidence["carried"] >= 2


def test_critic_zeroed_once_per_round_is_named():
    mon = _gan_loop(zero_d="once per round", critic_steps=5, steps=20)
    assert _carries(mon).count("carried") > _carries(mon).count("cleared")
    assert "GRADIENTS_ACCUMULATING" in _codes(mon)


@pytest.mark.parametrize("critic_steps", [1, 5])
def test_discriminator_zeroed_every_step_is_silent(critic_steps):
    mon = _gan_loop(zero_d="every step", critic_steps=critic_steps, steps=20)
    assert _carries(mon) and set(_carries(mon)) == {"cleared"}
    assert "GRADIENTS_ACCUMULATING" not in _codes(mon)


def test_clipping_the_other_optimizer_keeps_the_verdicts():
    """clip_grad_norm_ rescales .grad as a whole: the comparison goes by direction. (Clipped
    hard, to 0.01, the carried part is too small beside each new gradient to tell: no
    verdict, and little harm.)"""
    never = _gan_loop(zero_d="never", clip=0.1)
    assert "GRADIENTS_ACCUMULATING" in _codes(never)
    healthy = _gan_loop(zero_d="every step", clip=0.1)
    assert "carried" not in _carries(healthy)


def test_an_optimizer_given_a_closure_gets_no_verdict():
    """L-BFGS clears and backpropagates inside its step: nothing to judge from outside."""
    torch.manual_seed(0)
    model, helper = nn.Linear(3, 1), nn.Linear(3, 20)
    opt, lbfgs = torch.optim.SGD(model.parameters(), lr=0.1), \
        torch.optim.LBFGS(helper.parameters(), max_iter=3)
    x = torch.randn(32, 3)

    def closure():
        lbfgs.zero_grad()
        loss = helper(x).pow(2).mean()
        loss.backward()
        return loss
    with nd.watch(model, opt) as mon:
        for _ in range(10):
            lbfgs.step(closure)
            opt.zero_grad()
            loss = model(x).pow(2).mean()
            loss.backward()
            opt.step()
            mon.step(loss)
    assert mon.run.observed.other_optimizer_carries == []


def test_the_global_hook_leaves_with_the_monitor():
    from torch.optim import optimizer as optim_module
    before = len(optim_module._global_optimizer_pre_hooks)
    mon = _gan_loop(steps=3)
    assert len(optim_module._global_optimizer_pre_hooks) == before
    assert mon.other_clearing.done


def test_one_optimizer_loops_lose_the_hook_early():
    """A loop that steps only the watched optimizer gives no verdict, and the hook stops
    looking after STEP_CALLS_MAX steps."""
    from nndebug.monitor.other_optimizer_clearing import STEP_CALLS_MAX
    torch.manual_seed(0)
    model = nn.Linear(4, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x = torch.randn(16, 4)
    with nd.watch(model, opt) as mon:
        for _ in range(STEP_CALLS_MAX + 5):
            opt.zero_grad()
            loss = model(x).pow(2).mean()
            loss.backward()
            opt.step()
            mon.step(loss)
        assert mon.other_clearing.done
    assert mon.run.observed.other_optimizer_carries == []
