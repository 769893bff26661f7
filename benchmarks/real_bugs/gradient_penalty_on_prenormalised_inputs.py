"""A gradient penalty taken with respect to inputs that were normalised outside the graph:
the discriminator's inputs are standardised by a running normaliser first, then detached
and marked requires_grad, so autograd.grad differentiates with respect to the normalised
features and the penalty bounds that gradient. With respect to the raw features (what the
penalty is meant to keep smooth) each gradient is the penalised one divided by the
feature's standard deviation: on a feature with a small spread (a foot height in
centimetres) the discriminator stays steep, and the reward it gives the policy is a cliff
along that feature.

Reported: "Fix gradient penalty computation when empirical normalization is enabled" -
https://github.com/gbionics/amp-rsl-rl/pull/58 ("The gradient penalty in
`compute_grad_pen` was computed on **pre-normalized** inputs, causing the autograd graph to
miss the normalizer's Jacobian ... The `.detach().requires_grad_(True)` call **cuts the
autograd graph** - everything before it (including the normalizer) is invisible to
`autograd.grad`. So the gradient was computed w.r.t. the normalized tensor, not the raw
input."). Here an adversarial-motion-prior discriminator (least-squares targets +1 for
expert transitions, -1 for policy ones, a penalty of weight 10 on the expert transitions)
reads pairs of consecutive gait states (joint angle, joint velocity, foot height) through
a normaliser fitted on both. Fix: mark the raw states requires_grad and normalise inside
the penalty's graph.

Measured (400 steps): the discriminator's raw-input gradient norm on expert transitions,
the quantity the penalty exists to bound, is 2.78 for the bug and 0.14 for the fixed twin (20x steeper).
"""
import math

import torch
from torch import nn

import nndebug as nd

TITLE = "Fix gradient penalty computation when empirical normalization is enabled"
LINK = "https://github.com/gbionics/amp-rsl-rl/pull/58"
EXPECTED = ("GRADIENT_PENALTY_ON_DETACHED_COPY",)
STEPS = 400
BATCH = 128
PENALTY = 10.0


def gait(n, frequency, amplitude, foot_lift, generator):
    """n transitions (state at t, state at t + dt) of a gait: (angle, velocity, height)."""
    phase = torch.rand(n, 1, generator=generator) * 2 * math.pi
    states = []
    for shift in (0.0, 0.05 * frequency):
        p = phase + shift
        states += [amplitude * torch.sin(p), amplitude * frequency * torch.cos(p),
                   foot_lift * torch.clamp(torch.sin(p), min=0)]
    noise = 0.01 * torch.randn(n, 6, generator=generator)
    return torch.cat(states, dim=1) * (1 + noise)


class Normaliser(nn.Module):
    def __init__(self, samples):
        super().__init__()
        self.register_buffer("mean", samples.mean(0))
        self.register_buffer("std", samples.std(0))

    def forward(self, x):
        return (x - self.mean) / self.std


def discriminator():
    return nn.Sequential(nn.Linear(6, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(),
                         nn.Linear(64, 1))


def raw_input_gradient_norm(D, normalise, expert):
    raw = expert.clone().requires_grad_(True)
    grad, = torch.autograd.grad(D(normalise(raw)).sum(), raw)
    return round(float(grad.norm(dim=1).mean()), 2)


def gradient_penalty(D, normalise, expert, fixed):
    if fixed:
        data = expert.clone().requires_grad_(True)
        score = D(normalise(data))
    else:
        data = normalise(expert).detach().requires_grad_(True)   # BUG: the leaf is x_norm
        score = D(data)
    grad, = torch.autograd.grad(score.sum(), data, create_graph=True)
    return (grad.norm(dim=1) ** 2).mean()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(1)
    expert = lambda n: gait(n, 6.0, 0.8, 0.03, generator)       # noqa: E731
    policy = lambda n: gait(n, 4.5, 0.6, 0.05, generator)       # noqa: E731
    normalise = Normaliser(torch.cat([expert(4096), policy(4096)]))
    D = discriminator()
    optimizer = torch.optim.Adam(D.parameters(), lr=1e-3)
    with nd.watch(D, optimizer, **watch) as mon:
        for _ in range(steps):
            e, p = expert(BATCH), policy(BATCH)
            loss = ((D(normalise(e)) - 1) ** 2).mean() + ((D(normalise(p)) + 1) ** 2).mean() \
                + PENALTY * gradient_penalty(D, normalise, e, fixed)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.raw_gradient_norm = raw_input_gradient_norm(D, normalise, expert(512))
    return mon
