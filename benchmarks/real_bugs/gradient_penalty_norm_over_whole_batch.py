"""A WGAN-GP critic whose gradient penalty takes ONE norm of the whole batch's input
gradient, ``(1 - ||grad||)^2`` over the (batch, features) gradient of the summed critic
output, instead of a norm per sample, ``mean((1 - ||grad_i||)^2)``. The penalty is then
satisfied when the batch's gradients together have norm 1, i.e. each sample's has norm
about 1/sqrt(batch): the critic is held to a Lipschitz constant of 1/sqrt(batch) instead
of 1, so its estimate of the Wasserstein distance comes out sqrt(batch) times too small,
and it changes with the batch size. The loss curves look like any WGAN-GP's.

Reported: "fix the gradient penalty loss in the improved WGAN example" -
https://github.com/keras-team/keras-contrib/pull/232 (the example computed
``K.gradients(K.sum(y_pred), averaged_samples)`` and ``K.sqrt(K.sum(K.square(gradients)))``
over the whole batch; the PR: the old loss "train[s] gradients to the value ||gradient_i||
= 1 / sqrt(N) ... So the resulting critic does not compute the earth-movers distance (EMD)
but EMD / sqrt(N)", fixed by summing the squares over each sample's own axes only). Here
the critic of a WGAN-GP with the generator held fixed: an MLP trained to tell N(0, I) in 16
dimensions from the same shifted by 2 along one axis (Wasserstein-1 distance exactly 2),
penalty weight 10 on points interpolated between the two, batch 256, Adam
(benchmarks/real_bugs/_reg169.py). Fix: a norm per sample, then the mean of the squares.

Measured (the critic's estimate of W1 on 20,000 fresh points of each, true value 2.0;
the mean norm of its input gradient there, 1 for the method): seed 0: W1 estimate 0.120
for the bug against 2.26 for the fixed twin (gradient norm 0.062 against 1.13, where
1/sqrt(256) = 0.0625); seeds shifted by 1000: 0.108 against 2.22 (0.057 against 1.11).
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._reg169 import DIM, critic_report, gaussian_pair

TITLE = "fix the gradient penalty loss in the improved WGAN example"
LINK = "https://github.com/keras-team/keras-contrib/pull/232"
EXPECTED = ("GRADIENT_PENALTY_NORM_OVER_WHOLE_BATCH", "GRADIENT_PENALTY_NORM_OVER_ONE_AXIS")
STEPS = 600
BATCH = 256
PENALTY = 10.0


def gradient_penalty(critic, p, q, fixed):
    mix = torch.rand(len(p), 1)
    between = (mix * p + (1 - mix) * q).requires_grad_(True)
    grad, = torch.autograd.grad(critic(between).sum(), between, create_graph=True)
    if fixed:
        return ((grad.norm(2, dim=1) - 1) ** 2).mean()
    return (grad.norm(2) - 1) ** 2           # BUG: one norm over the whole batch


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    critic = nn.Sequential(nn.Linear(DIM, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(),
                           nn.Linear(256, 1))
    optimizer = torch.optim.Adam(critic.parameters(), lr=1e-3, betas=(0.5, 0.9))
    with nd.watch(critic, optimizer, **watch) as mon:
        for _ in range(steps):
            p, q = gaussian_pair(BATCH)
            loss = critic(q).mean() - critic(p).mean() + \
                PENALTY * gradient_penalty(critic, p, q, fixed)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.w1_estimate, mon.input_gradient_norm = critic_report(critic)
    return mon
