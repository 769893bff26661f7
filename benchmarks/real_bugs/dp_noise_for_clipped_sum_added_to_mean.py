"""DP-SGD written by hand: per-sample gradients from vmap(grad(...)), each clipped to norm
C, then averaged over the batch - and the Gaussian noise, whose standard deviation
sigma * C was worked out for the SUM of the clipped gradients (one sample changes the sum
by at most C), is added to the AVERAGE. The average moves by at most C / B when one sample
changes, so the noise is B = 64 times what the privacy budget asks for: every coordinate of
the gradient gets noise of standard deviation 1 while the clipped average has norm below 1.
The weights take a random walk and the classifier learns little; the privacy accounting,
which still reports sigma, says nothing is wrong.

Reported: "jax_api_example calibrates Gaussian noise for the clipped sum then adds it to the
mean" - https://github.com/google-deepmind/jax_privacy/issues/383 ("Noise calibrated for the
sum is applied to the mean, so the example over-noises by about batch_size"; the fix,
google-deepmind/jax_privacy#395, noises the clipped sum, then divides). Here an MLP
(64 -> 64 -> 10) on the 8x8 digits, Poisson-sampled batches (B = 64 on average), C = 1,
sigma = 1, plain SGD at lr 0.5, 300 steps (_dp339.py).

Fix: add the noise to the clipped sum and divide the noisy sum by B (equivalently, noise of
standard deviation sigma * C / B on the average).

Measured (held-out accuracy, 497 digits): 0.203 with the bug, 0.877 fixed;
seeds + 1000: 0.151 vs 0.889.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._dp339 import (CLIP, EXPECTED_BATCH, NOISE_MULTIPLIER, accuracy,
                                         clip_per_sample, digits_split, per_sample_gradients,
                                         poisson_batches)

TITLE = "jax_api_example calibrates Gaussian noise for the clipped sum then adds it to the mean"
LINK = "https://github.com/google-deepmind/jax_privacy/issues/383"
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
                noise = torch.normal(0.0, NOISE_MULTIPLIER * CLIP, param.shape)
                if fixed:
                    param.grad = (clipped[name].sum(0) + noise) / EXPECTED_BATCH
                else:                       # BUG: the sum's noise added to the average
                    param.grad = clipped[name].sum(0) / EXPECTED_BATCH + noise
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, xh, yh)
    return mon
