"""Real-bug batch 20 (multi-network training loops): a watched network fed by another
trainable network (a GAN's discriminator reading the generator's output) is not told that
the upstream network's parameters are unregistered parts of it, while a tensor the watched
model's own forward uses without registering it is still named."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

import nndebug as nd  # noqa: E402


def _codes(mon):
    return {f.code for f in mon.findings() if f.severity in ("warning", "error")}


class LeakyCritic(nn.Module):
    """A critic whose scale is a Parameter kept in a plain dict (never registered)."""

    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(16, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))
        self.hidden = {"scale": nn.Parameter(torch.ones(1))}

    def forward(self, x):
        return self.body(x) * self.hidden["scale"]


def _train_critic(critic, steps=30):
    """A small GAN: the watched critic judges a generator's output in both steps."""
    torch.manual_seed(0)
    G = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 16))
    opt_g = torch.optim.Adam(G.parameters(), lr=1e-3)
    opt_d = torch.optim.Adam(critic.parameters(), lr=1e-3)
    with nd.watch(critic, opt_d) as mon:
        for _ in range(steps):
            real = torch.randn(64, 16) + 2.0
            fake = G(torch.randn(64, 8))
            opt_d.zero_grad()
            d_loss = F.binary_cross_entropy_with_logits(critic(real), torch.ones(64, 1)) + \
                F.binary_cross_entropy_with_logits(critic(fake.detach()), torch.zeros(64, 1))
            d_loss.backward()
            opt_d.step()
            opt_g.zero_grad()
            g_loss = F.binary_cross_entropy_with_logits(critic(fake), torch.ones(64, 1))
            g_loss.backward()
            opt_g.step()
            mon.step(d_loss)
    return mon


def test_a_critic_fed_by_a_trained_generator_is_not_told_of_unregistered_parameters():
    critic = nn.Sequential(nn.Linear(16, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))
    assert "UNREGISTERED_PARAMETERS" not in _codes(_train_critic(critic))


def test_a_parameter_the_critic_itself_hides_is_still_named():
    assert "UNREGISTERED_PARAMETERS" in _codes(_train_critic(LeakyCritic()))
