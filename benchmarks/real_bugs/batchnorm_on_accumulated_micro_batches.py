"""Gradient accumulation used to reach a batch of 16 on a model with batch norm: the
micro-batches hold 2 samples each and 8 are accumulated per optimizer step. The gradients
add up as for a batch of 16, but every batch-norm forward still normalises over the 2
samples of its micro-batch: in training each unit is pushed to about +1/-1 whatever the
input, the running statistics are averages over pairs, and the network the optimizer
trains is not the one evaluated. The accumulation reproduces the batch size of the
gradient, not of the normalisation.

Reported: "Poor convergence with gradient accumulation" -
https://github.com/andreped/GradientAccumulator/issues/22 (batch size 2, accumulation 8,
Adam at 1e-3 and 5e-4: "The model did not converge at all"; the maintainer: "This was due
to batch normalization. GA is simply not compatible with BN."; the same in mmcv's
GradientCumulativeOptimizerHook warning, open-mmlab/mmcv#1869, 8% accuracy lost). Here a
digits MLP with two BatchNorm1d layers, Adam at 1e-3. Fix: a normalisation that does not
depend on the batch (GroupNorm, [groupnorm]), or batch-norm batches of real size.

Measured (150 optimizer steps = 1200 micro-batches, 297 held-out digits, eval mode): the
bug's held-out accuracy 0.55 and last-20 logged loss 1.98 (the last micro-batch of each
step); the fixed twin (GroupNorm of 8 groups, same accumulation) 0.89 and 0.34.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "Poor convergence with gradient accumulation"
LINK = "https://github.com/andreped/GradientAccumulator/issues/22"
EXPECTED = ("BATCHNORM_TINY_BATCH",)
STEPS = 150            # optimizer steps
MICRO_BATCH = 2
ACCUMULATE = 8         # micro-batches per optimizer step: an effective batch of 16
HELD_OUT = 297


def norm(width, fixed):
    return nn.GroupNorm(8, width) if fixed else nn.BatchNorm1d(width)   # BUG: BN on 2 rows


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = nn.Sequential(nn.Linear(64, 64), norm(64, fixed), nn.ReLU(),
                          nn.Linear(64, 64), norm(64, fixed), nn.ReLU(), nn.Linear(64, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    micro = batches(x[:-HELD_OUT], y[:-HELD_OUT], steps * ACCUMULATE, batch_size=MICRO_BATCH)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            optimizer.zero_grad()
            for _ in range(ACCUMULATE):
                xb, yb = next(micro)
                loss = loss_fn(model(xb), yb)
                (loss / ACCUMULATE).backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        predicted = model(x[-HELD_OUT:]).argmax(1)
    mon.test_accuracy = round(float((predicted == y[-HELD_OUT:]).float().mean()), 3)
    return mon
