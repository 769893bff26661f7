"""DP-SGD written by hand from a misreading of its update rule: the Gaussian noise is drawn
once for EVERY sample and added to that sample's clipped gradient before the batch is
averaged - (1/B) * sum_i (clip(g_i) + N(0, sigma^2 C^2)) - where DP-SGD adds ONE draw to
the sum, (1/B) * (sum_i clip(g_i) + N(0, sigma^2 C^2)). B independent draws add up to noise
sqrt(B) = 8 times larger than the privacy budget asks for, on a gradient whose clipped
average has norm below 1: the updates are mostly noise and the classifier learns a fraction
of what the same budget allows.

Reported: "A question about the implementation" -
https://github.com/huseyinatahaninan/Differentially-Private-Fine-tuning-of-Language-Models/issues/1
(the asker expected the noise on the average to have standard deviation sigma / sqrt(N),
one draw per example; the maintainer: "DPSGD adds a single noise to the sum of gradients,
not a fresh sample for each individual gradient"; the asker: "I misinterpreted the
formula"). Here an MLP (64 -> 64 -> 10) on the 8x8 digits, per-sample gradients from
vmap(grad(...)), Poisson-sampled batches (B = 64 on average), C = 1, sigma = 1, plain SGD
at lr 0.5, 300 steps (_dp339.py).

Fix: one noise draw of standard deviation sigma * C added to the clipped sum, then divided
by B.

Measured (held-out accuracy, 497 digits): 0.364 with the bug, 0.877 fixed;
seeds + 1000: 0.497 vs 0.889.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._dp339 import (CLIP, EXPECTED_BATCH, NOISE_MULTIPLIER, accuracy,
                                         clip_per_sample, digits_split, per_sample_gradients,
                                         poisson_batches)

TITLE = "A question about the implementation"
LINK = ("https://github.com/huseyinatahaninan/"
        "Differentially-Private-Fine-tuning-of-Language-Models/issues/1")
EXPECTED = ("LR_TOO_HIGH",)     # closest: updates far larger than the gradient makes them;
STEPS = 300                     # no code names a DP noise scale


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
                if fixed:
                    noise = torch.normal(0.0, NOISE_MULTIPLIER * CLIP, param.shape)
                    param.grad = (clipped[name].sum(0) + noise) / EXPECTED_BATCH
                else:                       # BUG: a fresh draw for every sample
                    noisy = clipped[name] + torch.normal(
                        0.0, NOISE_MULTIPLIER * CLIP, clipped[name].shape)
                    param.grad = noisy.sum(0) / EXPECTED_BATCH
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, xh, yh)
    return mon
