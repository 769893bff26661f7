"""Pieces the batch-166 cases share (physics-informed networks and neural ODEs): a small
tanh MLP, the input derivative every residual takes, a relative L2 error, and a fixed-step
RK4 integrator whose time may differ per trajectory."""
import torch
from torch import nn


def tanh_mlp(inputs=1, hidden=32, outputs=1, layers=2):
    """A smooth MLP (tanh), the usual PINN network: ``layers`` hidden layers of ``hidden``."""
    modules, width = [], inputs
    for _ in range(layers):
        modules += [nn.Linear(width, hidden), nn.Tanh()]
        width = hidden
    modules.append(nn.Linear(width, outputs))
    return nn.Sequential(*modules)


def derivative(y, x):
    """dy/dx per point (y computed pointwise from x), kept in the graph for a second one."""
    return torch.autograd.grad(y, x, torch.ones_like(y), create_graph=True)[0]


def relative_error(prediction, truth):
    return round(float((prediction - truth).norm() / truth.norm()), 3)


def rk4(field, state, start, step, steps):
    """Integrate d state/dt = field(state, t) with ``steps`` fixed RK4 steps of ``step`` from
    time ``start`` (a (B, 1) tensor: each trajectory its own clock). Returns the states at
    every step after the first, (steps, B, D)."""
    out, t = [], start
    for _ in range(steps):
        k1 = field(state, t)
        k2 = field(state + 0.5 * step * k1, t + 0.5 * step)
        k3 = field(state + 0.5 * step * k2, t + 0.5 * step)
        k4 = field(state + step * k3, t + step)
        state = state + step / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        t = t + step
        out.append(state)
    return torch.stack(out)


class _MemoryLeanODE(torch.autograd.Function):
    """A fixed-step RK4 solve whose backward pass recomputes each step and differentiates it
    with respect to the state and the tensors handed in as ``params`` only - the contract of
    an adjoint-style solver (torchdiffeq's odeint_adjoint: gradients for ``func``'s own
    parameters, or ``adjoint_params``). Anything else ``func`` reads gets no gradient."""

    @staticmethod
    def forward(ctx, func, step, steps, y0, *params):
        states = [y0]
        with torch.no_grad():
            for _ in range(steps):
                states.append(_rk4_step(func, states[-1], step))
        ctx.func, ctx.step = func, step
        ctx.save_for_backward(*states, *params)
        ctx.count = len(states)
        return torch.stack(states[1:])

    @staticmethod
    def backward(ctx, grad_out):
        saved = ctx.saved_tensors
        states, params = saved[:ctx.count], saved[ctx.count:]
        adjoint = torch.zeros_like(states[0])
        totals = [torch.zeros_like(p) for p in params]
        for k in range(ctx.count - 1, 0, -1):
            adjoint = adjoint + grad_out[k - 1]
            with torch.enable_grad():
                y = states[k - 1].detach().requires_grad_(True)
                out = _rk4_step(ctx.func, y, ctx.step)
                grads = torch.autograd.grad(out, (y, *params), adjoint, allow_unused=True)
            adjoint = grads[0]
            totals = [t if g is None else t + g for t, g in zip(totals, grads[1:])]
        return (None, None, None, adjoint, *totals)


def _rk4_step(func, y, step):
    k1 = func(y)
    k2 = func(y + 0.5 * step * k1)
    k3 = func(y + 0.5 * step * k2)
    k4 = func(y + step * k3)
    return y + step / 6 * (k1 + 2 * k2 + 2 * k3 + k4)


def odeint_lean(func, y0, step, steps, params):
    """States after each of ``steps`` RK4 steps of the autonomous field ``func`` from ``y0``,
    (steps, B, D); gradients reach ``y0`` and ``params`` only (see _MemoryLeanODE)."""
    return _MemoryLeanODE.apply(func, step, steps, y0, *params)
