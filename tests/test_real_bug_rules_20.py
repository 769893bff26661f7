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


# --- PARAMS_IN_TWO_OPTIMIZERS (rules/shared_optimizers.py, monitor/shared_optimizers.py) ---
def _gan(d_params_of_generator=False, steps=12):
    """A small GAN watched on its generator; the discriminator's optimizer is built over
    the generator's parameters when ``d_params_of_generator`` (bohaohuang/mrs#68)."""
    torch.manual_seed(0)
    G = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 16))
    D = nn.Sequential(nn.Linear(16, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))
    opt_g = torch.optim.Adam(G.parameters(), lr=1e-3)
    opt_d = torch.optim.Adam((G if d_params_of_generator else D).parameters(), lr=1e-3)
    with nd.watch(G, opt_g) as mon:
        for _ in range(steps):
            fake = G(torch.randn(32, 8))
            opt_g.zero_grad()
            g_loss = F.binary_cross_entropy_with_logits(D(fake), torch.ones(32, 1))
            g_loss.backward()
            opt_g.step()
            opt_d.zero_grad()
            d_loss = F.binary_cross_entropy_with_logits(D(torch.randn(32, 16) + 2),
                                                        torch.ones(32, 1)) + \
                F.binary_cross_entropy_with_logits(D(fake.detach()), torch.zeros(32, 1))
            d_loss.backward()
            opt_d.step()
            mon.step(g_loss)
    return mon


def test_the_discriminators_optimizer_over_the_generator_is_named():
    found = {f.code: f for f in _gan(d_params_of_generator=True).findings()}
    assert found["PARAMS_IN_TWO_OPTIMIZERS"].severity == "warning"
    assert found["PARAMS_IN_TWO_OPTIMIZERS"].evidence["tensors_in_both"] == 4


def test_each_network_with_its_own_optimizer_is_left_alone():
    assert "PARAMS_IN_TWO_OPTIMIZERS" not in {f.code for f in _gan().findings()}


def _train(model, optimizers, stepped, steps=12):
    """Plain regression on ``model``, watched with ``optimizers[0]``; ``stepped`` are the
    optimizers the loop zeroes and steps."""
    torch.manual_seed(0)
    with nd.watch(model, optimizers[0]) as mon:
        for _ in range(steps):
            x = torch.randn(32, 8)
            for o in stepped:
                o.zero_grad()
            loss = F.mse_loss(model(x), x.sum(dim=1, keepdim=True))
            loss.backward()
            for o in stepped:
                o.step()
            mon.step(loss)
    return mon


def test_two_optimizers_over_disjoint_parts_of_one_model_are_left_alone():
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
    body = torch.optim.Adam(model[0].parameters(), lr=1e-3)
    head = torch.optim.SGD(model[2].parameters(), lr=1e-2)
    mon = _train(model, [body], [body, head])
    assert "PARAMS_IN_TWO_OPTIMIZERS" not in {f.code for f in mon.findings()}


class Lookahead(torch.optim.Optimizer):
    """A wrapper over an inner optimizer's param groups that steps it from its own step."""

    def __init__(self, inner, alpha=0.5):
        self.inner, self.alpha = inner, alpha
        super().__init__(inner.param_groups, {})

    @torch.no_grad()
    def step(self, closure=None):
        return self.inner.step(closure)

    def zero_grad(self, set_to_none=True):
        self.inner.zero_grad(set_to_none)


def test_a_wrapper_that_steps_its_inner_optimizer_is_left_alone():
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
    wrapper = Lookahead(torch.optim.Adam(model.parameters(), lr=1e-3))
    mon = _train(model, [wrapper], [wrapper])
    assert "PARAMS_IN_TWO_OPTIMIZERS" not in {f.code for f in mon.findings()}
