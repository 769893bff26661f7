"""Real-bug batch 135 (learning with noisy labels): a loss over rows chosen by ranking
per-sample losses (co-teaching's small-loss trick) jumps with what the choice lets in, and
its single-step spikes are no sign of a learning rate too high (``curve.rows_chosen_by_loss``,
``monitor/ranked_losses.py``); and a pair of networks kept in a ModuleList, which is never
called itself, still gets the function mode that sees loss calls."""
import pytest

torch = pytest.importorskip("torch")

import nndebug as nd  # noqa: E402
from nndebug.rules.curve import rows_chosen_by_loss  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
F = torch.nn.functional


def noisy_digits(n=512, noise=0.4, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 16, generator=g)
    y = x[:, :4].argmax(1)
    flip = torch.rand(n, generator=g) < noise
    return x, torch.where(flip, torch.randint(0, 4, (n,), generator=g), y)


def pair():
    return torch.nn.ModuleList([torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(),
                                                    torch.nn.Linear(32, 4)) for _ in range(2)])


def co_teach(steps=120, select=True, rank=True):
    """Each network trains on the rows its peer finds easiest (``select``); ``rank=False``
    ranks something other than the losses (the rows' first feature)."""
    torch.manual_seed(0)
    x, y = noisy_digits()
    nets = pair()
    optimizer = torch.optim.Adam(nets.parameters(), lr=1e-2)
    with nd.watch(nets, optimizer) as mon:
        for step in range(steps):
            rows = torch.randint(0, len(x), (64,))
            xb, yb = x[rows], y[rows]
            logits = [net(xb) for net in nets]
            keep = 40
            with torch.no_grad():
                if rank:
                    easy = [F.cross_entropy(z, yb, reduction="none").argsort()[:keep]
                            for z in logits]
                else:
                    easy = [xb[:, 0].argsort()[:keep]] * 2
            if select:
                loss = F.cross_entropy(logits[0][easy[1]], yb[easy[1]]) + \
                    F.cross_entropy(logits[1][easy[0]], yb[easy[0]])
            else:
                loss = F.cross_entropy(logits[0], yb) + F.cross_entropy(logits[1], yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


class Run:
    def __init__(self, mon):
        self.run = mon.run


def test_rows_chosen_by_ranking_per_sample_losses_are_noted():
    mon = co_teach()
    assert mon.run.observed.ranked_losses, "argsort of reduction='none' losses seen"
    assert rows_chosen_by_loss(Run(mon))
    # the pair's loss calls are seen although the ModuleList itself is never called
    assert mon.run.observed.loss_calls


def test_ranking_something_else_is_not_noted():
    mon = co_teach(rank=False)
    assert not mon.run.observed.ranked_losses
    assert not rows_chosen_by_loss(Run(mon))


def test_a_healthy_small_loss_pair_draws_no_oscillation():
    mon = co_teach(steps=300)
    codes = {f.code for f in mon.findings() if f.severity in ("warning", "error")}
    assert "LOSS_OSCILLATING" not in codes, mon.findings()
