"""DP-SGD written by hand with per-sample gradients from vmap(grad(...)): each sample's
gradient is clipped to norm C, the clipped gradients are summed, Gaussian noise of standard
deviation sigma * C is added to the sum - and the noisy SUM is handed to the optimizer as
the gradient, never divided by the batch size. The learning rate was chosen for an average,
so every step is about B = 64 times too large (signal and noise alike); SGD overshoots step
after step and the network learns little.

Reported: "Differentially private CIFAR 10 not training" -
https://github.com/pytorch/functorch/issues/467 ("for each epoch the loss gets higher and
higher and the accuracy stays below 10%"; functorch's DP example computed per-sample
gradients with vmap, clipped, summed and noised them and assigned the result to
param.grad; the fix, pytorch/functorch#873, divides it by the batch size). Here an MLP
(64 -> 64 -> 10) on the 8x8 digits, Poisson-sampled batches (B = 64 on average), C = 1,
sigma = 1, plain SGD at lr 0.5, 300 steps (_dp339.py).

Fix: param.grad = (clipped sum + noise) / B, the average the learning rate was set for.

Measured (held-out accuracy, 497 digits): 0.372 with the bug, 0.877 fixed;
seeds + 1000: 0.278 vs 0.889.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._dp339 import (CLIP, EXPECTED_BATCH, NOISE_MULTIPLIER, accuracy,
                                         clip_per_sample, digits_split, per_sample_gradients,
                                         poisson_batches)

TITLE = "Differentially private CIFAR 10 not training"
LINK = "https://github.com/pytorch/functorch/issues/467"
EXPECTED = ("LR_TOO_HIGH",)     # every step batch-size times the one the rate was set for
STEPS = 300


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, xh, yh = digits_split()
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    sample_grads = per_sample_gradients(model)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in poisson_batches(len(x), steps, seed=0):
            xb, yb = x[index], y[index]
            loss = nn.functional.cross_entropy(model(xb), yb)      # for the log only
            clipped = clip_per_sample(sample_grads(xb, yb))
            optimizer.zero_grad()
            for name, param in model.named_parameters():
                noisy_sum = clipped[name].sum(0) + torch.normal(
                    0.0, NOISE_MULTIPLIER * CLIP, param.shape)
                if fixed:
                    param.grad = noisy_sum / EXPECTED_BATCH
                else:
                    param.grad = noisy_sum          # BUG: the sum, never divided by B
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, xh, yh)
    return mon
