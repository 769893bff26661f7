"""DP-SGD written by hand with virtual (logical) batches: the privacy accounting is done
for Poisson-sampled logical batches of 256 rows on average, which are run through the
per-sample gradients in physical chunks of 64 rows; each chunk's clipped per-sample
gradients are summed into param.grad, and after the last chunk the noise (sigma * C, for
the whole logical batch) is added and the sum divided by 256 before optimizer.step(). But
the loop still calls optimizer.zero_grad() at the top of EVERY chunk, as a plain training
loop does: each chunk wipes the sums of the chunks before it, and the step sees the last
chunk's gradients only - about a quarter of the signal, under the full logical batch's
noise and divisor. The run completes, the loss falls slowly, and the model ends far below
what the same privacy budget allows.

Reported: "Can not reproduce cifar10 results of cnn model" -
https://github.com/ftramer/Handcrafted-DP/issues/1 (test accuracy 48.05% where the paper
reports 59.2%; the author: with the newer Opacus, "remove the optimizer.zero_grad() call"
in the physical-batch loop and "call optimizer.zero_grad() immediately after
optimizer.step()"). Here an MLP (64 -> 64 -> 10) on the 8x8 digits, per-sample gradients
from vmap(grad(...)), logical batches of 256 on average in chunks of 64, C = 1, sigma = 1,
plain SGD at lr 0.5, 120 logical steps (_dp339.py).

Fix: optimizer.zero_grad() once per logical batch, right after optimizer.step().

Measured (held-out accuracy, 497 digits): 0.622 with the bug, 0.811 fixed;
seeds + 1000: 0.596 vs 0.839.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._dp339 import (CLIP, NOISE_MULTIPLIER, accuracy, clip_per_sample,
                                         digits_split, per_sample_gradients, poisson_batches)

TITLE = "Can not reproduce cifar10 results of cnn model"
LINK = "https://github.com/ftramer/Handcrafted-DP/issues/1"
EXPECTED = ("GRADIENTS_DISCARDED",)
STEPS = 120
LOGICAL_BATCH = 256
PHYSICAL_BATCH = 64


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, xh, yh = digits_split()
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    sample_grads = per_sample_gradients(model)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in poisson_batches(len(x), steps, expected_batch=LOGICAL_BATCH, seed=0):
            losses = []
            for chunk in index.split(PHYSICAL_BATCH):
                if not fixed:
                    optimizer.zero_grad()   # BUG: wipes the chunks summed before this one
                xb, yb = x[chunk], y[chunk]
                losses.append(nn.functional.cross_entropy(model(xb), yb, reduction="sum"))
                clipped = clip_per_sample(sample_grads(xb, yb))
                for name, param in model.named_parameters():
                    chunk_sum = clipped[name].sum(0)
                    param.grad = chunk_sum if param.grad is None else param.grad + chunk_sum
            for param in model.parameters():
                noise = torch.normal(0.0, NOISE_MULTIPLIER * CLIP, param.shape)
                param.grad = (param.grad + noise) / LOGICAL_BATCH
            optimizer.step()
            if fixed:
                optimizer.zero_grad()
            mon.step(torch.stack(losses).sum() / len(index))        # for the log only
    mon.held_out_accuracy = accuracy(model, xh, yh)
    return mon
