"""Real-bug batch 56 (losses built from derivatives): a ReLU PINN on a second-order equation
(PDE_DERIVATIVE_OF_PIECEWISE_LINEAR_NETWORK), u_xx taken as grad(u, x)
(PDE_SECOND_DERIVATIVE_TAKEN_ONCE), a WGAN-GP norm over the channel axis of image gradients
(GRADIENT_PENALTY_NORM_OVER_ONE_AXIS), an IGA penalty whose gradients have no graph
(LOSS_TERM_WITHOUT_GRADIENT, and no GRADIENTS_DISCARDED on its fixed twin: parameter
gradients handed back by torch.autograd.grad never reach .grad). The fixed twins stay
silent, and so do healthy derivative losses a careless rule would flag: a ReLU critic's
first-order gradient penalty, a tanh PINN on a first-order equation, a tanh PINN that also
takes a Neumann derivative at its boundary, an image critic whose norm covers every
non-batch axis, and inputs marked requires_grad_() (not unregistered parameters)."""
import math

import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

from benchmarks.real_bugs import gradient_penalty_grads_taken_without_create_graph as iga  # noqa: E402
from benchmarks.real_bugs import gradient_penalty_norm_over_channel_axis as pixel_norm  # noqa: E402
from benchmarks.real_bugs import pinn_relu_network_for_second_order_pde as relu_pinn  # noqa: E402
from benchmarks.real_bugs import pinn_second_derivative_taken_from_u as taken_once  # noqa: E402
import nndebug as nd  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
NEW = {"PDE_DERIVATIVE_OF_PIECEWISE_LINEAR_NETWORK", "PDE_SECOND_DERIVATIVE_TAKEN_ONCE",
       "GRADIENT_PENALTY_NORM_OVER_ONE_AXIS"}


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def test_a_relu_pinn_on_a_second_order_equation_is_named():
    found = [f for f in relu_pinn.run(steps=40).findings()
             if f.code == "PDE_DERIVATIVE_OF_PIECEWISE_LINEAR_NETWORK"]
    assert found and found[0].severity == "warning"
    assert set(found[0].evidence["orders"]) == {2}


def test_a_second_derivative_taken_from_u_is_named():
    assert "PDE_SECOND_DERIVATIVE_TAKEN_ONCE" in _problems(taken_once.run(steps=40))


def test_a_gradient_norm_over_the_channel_axis_is_named():
    found = [f for f in pixel_norm.run(steps=3).findings()
             if f.code == "GRADIENT_PENALTY_NORM_OVER_ONE_AXIS"]
    assert found and found[0].evidence["rank"] == 4
    assert found[0].evidence["norms_per_sample"] == 64


def test_an_iga_penalty_without_create_graph_is_named():
    found = [f for f in iga.run(steps=40).findings() if f.code == "LOSS_TERM_WITHOUT_GRADIENT"]
    assert found and found[0].evidence["grad_calls_without_graph"] > 0
    assert "create_graph=True" in found[0].fix


@pytest.mark.parametrize("case, steps", [(relu_pinn, 40), (taken_once, 40), (pixel_norm, 3),
                                         (iga, 120)])
def test_the_fixed_twins_are_silent(case, steps):
    assert not _problems(case.run(fixed=True, steps=steps))


def test_torch_autograd_grad_is_put_back_when_the_monitor_closes():
    original = torch.autograd.grad
    model = nn.Linear(1, 1)
    with nd.watch(model, torch.optim.SGD(model.parameters(), lr=0.1)):
        assert torch.autograd.grad is not original
    assert torch.autograd.grad is original


# --- healthy look-alikes ----------------------------------------------------------------------
def _derivative(y, x):
    return torch.autograd.grad(y, x, torch.ones_like(y), create_graph=True)[0]


def _train(model, loss_of, steps=30, lr=1e-3):
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    with nd.watch(model, optimizer) as mon:
        for step in range(steps):
            loss = loss_of(step)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_a_relu_critic_with_a_first_order_gradient_penalty_is_silent():
    torch.manual_seed(0)
    critic = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 1))
    real = torch.randn(256, 16) + 2

    def loss_of(step):
        fake = torch.randn(64, 16)
        batch = real[(step * 64) % 256:][:64]
        mix = torch.rand(64, 1)
        between = (mix * batch + (1 - mix) * fake).requires_grad_(True)
        grad = _derivative(critic(between), between)
        penalty = ((grad.norm(2, dim=1) - 1) ** 2).mean()
        return critic(fake).mean() - critic(batch).mean() + 10 * penalty

    assert not _problems(_train(critic, loss_of)) & (NEW | {"UNREGISTERED_PARAMETERS",
                                                           "NO_GRADIENT"})


def test_a_tanh_pinn_on_a_first_order_equation_is_silent():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(1, 16), nn.Tanh(), nn.Linear(16, 1))

    def loss_of(step):
        t = torch.rand(64, 1).requires_grad_(True)
        u = model(t)
        start = model(torch.zeros(1, 1))
        return ((_derivative(u, t) + u) ** 2).mean() + ((start - 1) ** 2).mean()

    assert not _problems(_train(model, loss_of))


def test_a_tanh_pinn_with_a_neumann_boundary_is_silent():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(1, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(),
                          nn.Linear(16, 1))

    def loss_of(step):
        x = torch.rand(64, 1).requires_grad_(True)
        u_x = _derivative(model(x), x)
        u_xx = _derivative(u_x, x)
        ends = torch.tensor([[0.0], [1.0]], requires_grad=True)
        slope = _derivative(model(ends), ends)       # u'(0) = u'(1) = 0, and u(0) = 1
        residual = u_xx + math.pi ** 2 * torch.cos(math.pi * x)
        return (residual ** 2).mean() + (slope ** 2).mean() + \
            ((model(torch.zeros(1, 1)) - 1) ** 2).mean()

    assert not _problems(_train(model, loss_of))


@pytest.mark.parametrize("flatten", [False, True])
def test_an_image_critic_whose_norm_covers_every_axis_is_silent(flatten):
    torch.manual_seed(0)
    critic = pixel_norm.critic()
    real = torch.rand(128, 1, 8, 8)

    def loss_of(step):
        fake = torch.rand(32, 1, 8, 8) * 0.5
        batch = real[(step * 32) % 128:][:32]
        between = (0.5 * batch + 0.5 * fake).requires_grad_(True)
        grad = _derivative(critic(between), between)
        norm = grad.flatten(1).norm(2, dim=1) if flatten else grad.norm(2, dim=(1, 2, 3))
        return critic(fake).mean() - critic(batch).mean() + 10 * ((norm - 1) ** 2).mean()

    assert "GRADIENT_PENALTY_NORM_OVER_ONE_AXIS" not in _problems(_train(critic, loss_of,
                                                                         steps=6))
