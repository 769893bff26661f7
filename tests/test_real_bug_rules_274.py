"""Real-bug batch 274 (beginner physics-informed networks): a derivative in the loss that
is a constant - the prediction differentiated by itself, grad(y.sum(), y), all ones, where
dy/dt was meant (LOSS_TERM_WITHOUT_GRADIENT). The planted case is the benchmark's ODE
PINN; healthy PINNs - a leaf time input, an input computed from leaves (a concatenation,
a rescaling), a second derivative - and a gradient penalty on a computed interpolate stay
silent. torch only: the signal is read from torch.autograd.grad calls."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import ode_residual_differentiates_output_by_itself as ode_case  # noqa: E402,E501

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def _tanh_net(inputs=1):
    return nn.Sequential(nn.Linear(inputs, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(),
                         nn.Linear(16, 1))


def _pinn(derivative, inputs=1, steps=20):
    """An ODE/PDE residual trained for a few steps; ``derivative(model)`` -> (u, residual)."""
    torch.manual_seed(0)
    model = _tanh_net(inputs)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer) as mon:
        for _ in range(steps):
            u, residual = derivative(model)
            loss = (residual ** 2).mean() + ((model(torch.zeros(1, inputs)) - 1) ** 2).sum()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def _grad(y, x):
    return torch.autograd.grad(y, x, torch.ones_like(y), create_graph=True)[0]


def test_planted_ode_derivative_of_output_by_itself_is_named():
    assert "LOSS_TERM_WITHOUT_GRADIENT" in _problems(ode_case.run(fixed=False, steps=40))


def test_fixed_ode_twin_is_silent():
    assert _problems(ode_case.run(fixed=True, steps=40)) == set()


def test_prediction_by_itself_in_a_small_loop_is_named():
    def by_itself(model):
        t = torch.linspace(0, 2, 21).reshape(-1, 1).requires_grad_(True)
        y = model(t)
        return y, torch.autograd.grad(y.sum(), y, create_graph=True)[0] + y
    mon = _pinn(by_itself)
    assert "LOSS_TERM_WITHOUT_GRADIENT" in _problems(mon)
    assert any(c[2] == "computed" for c in mon.run.observed.derivative_calls)


def test_leaf_time_input_is_silent():
    def leaf(model):
        t = torch.linspace(0, 2, 21).reshape(-1, 1).requires_grad_(True)
        y = model(t)
        return y, _grad(y, t) + y
    mon = _pinn(leaf)
    assert "LOSS_TERM_WITHOUT_GRADIENT" not in _problems(mon)
    assert all(c[2] == "inputs" for c in mon.run.observed.derivative_calls)


def test_input_computed_from_leaves_is_silent():
    def concatenated(model):
        x = torch.rand(64, 1).requires_grad_(True)
        t = torch.rand(64, 1).requires_grad_(True)
        xt = torch.cat([x, t], dim=1) * 2 - 1          # a non-leaf input the model reads
        u = model(xt)
        u_xt = _grad(u, xt)
        u_xx = _grad(u_xt[:, [0]], xt)[:, [0]]
        return u, u_xt[:, [1]] - 0.1 * u_xx
    mon = _pinn(concatenated, inputs=2)
    assert "LOSS_TERM_WITHOUT_GRADIENT" not in _problems(mon)
    assert not any(c[2] == "computed" for c in mon.run.observed.derivative_calls)


def test_gradient_penalty_on_computed_interpolate_is_silent():
    torch.manual_seed(0)
    critic = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 1))
    generator = nn.Linear(2, 4)
    optimizer = torch.optim.Adam(critic.parameters(), lr=1e-3)
    with nd.watch(critic, optimizer) as mon:
        for _ in range(12):
            real, fake = torch.randn(32, 4), generator(torch.randn(32, 2))
            alpha = torch.rand(32, 1)
            mixed = alpha * real + (1 - alpha) * fake          # non-leaf: fake has a graph
            score = critic(mixed)
            grad = torch.autograd.grad(score, mixed, torch.ones_like(score),
                                       create_graph=True)[0]
            penalty = ((grad.norm(2, dim=1) - 1) ** 2).mean()
            loss = critic(fake.detach()).mean() - critic(real).mean() + 10 * penalty
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert "LOSS_TERM_WITHOUT_GRADIENT" not in _problems(mon)
