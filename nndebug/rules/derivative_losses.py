"""Losses built from derivatives of the model (``torch.autograd.grad`` in the loop) whose
derivative is not the one the method needs.

PDE_DERIVATIVE_OF_PIECEWISE_LINEAR_NETWORK: a second (or higher) derivative of the output
with respect to the input that is exactly zero at every point, on most noted steps, while
the first derivative is not. A network of ReLUs (or of linear layers alone) is piecewise
linear in its input: autograd's second derivative of it is 0.0 everywhere, so a residual
u_xx - f reads -f whatever the weights, its gradient with respect to them is zero, and only
the boundary terms train. lululxvi/deepxde#80 (a PINN on the Navier-Stokes equations that
would not converge; the maintainer: "Don't use relu, which is not second order
differentiable. Use smooth activations, e.g., tanh."). A smooth network's second
derivative is never exactly zero at all of a batch's points.

PDE_SECOND_DERIVATIVE_TAKEN_ONCE: the same derivative (the same outputs with respect to the
same inputs, create_graph=True) taken twice in a step, on most noted steps, and no call in
the step differentiates a derivative. The usual cause is ``u_xx = grad(u, x)`` written for
``grad(u_x, x)``: the "second derivative" is the first one again, and the network solves
another equation while every loss goes down. AdityaLab/pinnsformer#2 ("the second-order
derivative `u_xx` is calculated directly from `u` ... we should first compute the
first-order derivative `u_x` ... and then differentiate `u_x` ... again"; a maintainer:
"you are correct").

GRADIENT_PENALTY_NORM_OVER_ONE_AXIS: the loss takes a vector norm of an image-shaped input
gradient (batch, channel, height, width) over some of its non-batch axes only
(``grad.norm(2, dim=1)``), leaving one norm per pixel: a gradient penalty then holds every
pixel's gradient to 1, the whole gradient's norm near sqrt(pixels), and the critic is far
steeper than the 1-Lipschitz one WGAN-GP asks for. Zeleni9/pytorch-wgan#40 ("The shape of
`gradients` is [batch_size, 1, 32, 32], the above `norm(2, dim=1)` ... is actually enforcing
`gradients` to be closer to 1 **element-wise**"), eriklindernoren/PyTorch-GAN#20.

All read ``run.observed.derivative_calls`` and ``per_position_gradient_norms`` (monitor/
derivative_calls.py): the first noted steps of the loop only.
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule

DERIVATIVE_MIN_STEPS = 2     # [design] noted steps that must show the pattern: one step's
                             # calls could be a one-off (a logging call)
DERIVATIVE_MAJORITY = 0.5    # [design] more than half of the noted steps show it


def _by_step(calls):
    steps = {}
    for call in calls:
        steps.setdefault(call[0], []).append(call)
    return dict(sorted(steps.items()))


def _most_steps(flagged, steps):
    return len(flagged) >= DERIVATIVE_MIN_STEPS and \
        len(flagged) > DERIVATIVE_MAJORITY * len(steps)


def zero_higher_derivative_steps(calls):
    """{step: (order of the zero derivative, calls of the step)} where a derivative of
    order 2 or more with respect to the input is exactly zero while a first derivative
    with respect to the input is not."""
    flagged = {}
    for step, step_calls in _by_step(calls).items():
        wrt_input = [c for c in step_calls if c[2] == "inputs"]
        first_live = any(c[1] == 1 and not c[4] for c in wrt_input)
        zero_high = [c[1] for c in wrt_input if c[1] >= 2 and c[4]]
        if first_live and zero_high:
            flagged[step] = max(zero_high)
    return flagged


@rule(produces="PDE_DERIVATIVE_OF_PIECEWISE_LINEAR_NETWORK",
      explains={"LOSS_PLATEAU", "LR_TOO_LOW"})
def derivative_of_piecewise_linear_network(ctx):
    calls = observed_list(ctx, "derivative_calls")
    steps = _by_step(calls)
    flagged = zero_higher_derivative_steps(calls)
    if not _most_steps(flagged, steps):
        return None
    step, order = next(iter(flagged.items()))
    return Finding(
        code="PDE_DERIVATIVE_OF_PIECEWISE_LINEAR_NETWORK", severity="warning", where="loss",
        step=step,
        message=f"The loss reads a derivative of order {order} of the model's output with "
                f"respect to its input that is exactly 0.0 at every point (on {len(flagged)} of "
                f"{len(steps)} noted steps, while the first derivative is not): the network is "
                "piecewise linear in its input (ReLU, LeakyReLU or no activation), so its "
                "second derivative vanishes everywhere, the equation's residual does not "
                "depend on the weights, and only the other loss terms (boundary, data) train.",
        evidence={"steps": list(flagged), "orders": list(flagged.values()),
                  "noted_steps": list(steps)},
        fix="Use a smooth activation (tanh, SiLU/swish, GELU, sin) in a network whose "
            "second or higher derivatives enter the loss.")


def repeated_first_derivative_steps(calls):
    """Steps where the same derivative with respect to the input (create_graph) is taken
    twice and no call differentiates a derivative."""
    flagged = []
    for step, step_calls in _by_step(calls).items():
        wrt_input = [c for c in step_calls if c[2] == "inputs"]
        repeated = [c for c in wrt_input if c[5] and c[3] and c[1] == 1]
        if repeated and not any(c[1] >= 2 for c in wrt_input):
            flagged.append(step)
    return flagged


@rule(produces="PDE_SECOND_DERIVATIVE_TAKEN_ONCE")
def second_derivative_taken_once(ctx):
    calls = observed_list(ctx, "derivative_calls")
    steps = _by_step(calls)
    flagged = repeated_first_derivative_steps(calls)
    if not _most_steps(flagged, steps):
        return None
    return Finding(
        code="PDE_SECOND_DERIVATIVE_TAKEN_ONCE", severity="warning", where="loss",
        step=flagged[0],
        message=f"The same derivative of the model's output with respect to its input is "
                f"taken twice in a step (torch.autograd.grad with the same outputs and inputs, "
                f"create_graph=True; on {len(flagged)} of {len(steps)} noted steps), and no call "
                "differentiates a derivative: a second derivative written as grad(u, x) is the "
                "first derivative again, and the network is trained on another equation.",
        evidence={"steps": flagged, "noted_steps": list(steps)},
        fix="Differentiate the first derivative for the second: u_x = grad(u, x, "
            "create_graph=True); u_xx = grad(u_x, x, create_graph=True). If the repeat is on "
            "purpose, compute the derivative once and reuse it.")


@rule(produces="GRADIENT_PENALTY_NORM_OVER_ONE_AXIS")
def gradient_penalty_norm_over_one_axis(ctx):
    norms = observed_list(ctx, "per_position_gradient_norms")
    steps = sorted({n[0] for n in norms})
    if len(steps) < DERIVATIVE_MIN_STEPS:
        return None
    step, rank, reduced, per_sample = norms[0]
    return Finding(
        code="GRADIENT_PENALTY_NORM_OVER_ONE_AXIS", severity="warning", where="loss",
        step=step,
        message=f"The loss takes the norm of a {rank}-D input gradient (torch.autograd.grad "
                f"with create_graph=True) over {reduced} of its {rank - 1} non-batch axes, "
                f"leaving {per_sample} norms per sample (on {len(steps)} noted steps): a "
                "gradient penalty written as grad.norm(2, dim=1) on (batch, channel, height, "
                "width) holds every pixel's gradient to 1, not each sample's whole gradient, "
                "so the critic stays far steeper than 1-Lipschitz.",
        evidence={"steps": steps, "rank": rank, "axes_reduced": reduced,
                  "norms_per_sample": per_sample},
        fix="Flatten each sample's gradient before the norm: grad.view(grad.size(0), "
            "-1).norm(2, dim=1) (or norm over dim=(1, 2, 3)).")
