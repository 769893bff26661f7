"""Deep SVDD trained with its ``loss.backward()`` commented out: the loop computes the
one-class loss, calls ``optimizer.zero_grad()`` and ``optimizer.step()`` every batch, but no
gradient ever reaches the weights, so every step is a no-op and the anomaly scores are
distances in the randomly initialised network's output space. The printed loss wobbles
around its first value from batch to batch; nothing errors.

Reported: "Fix DeepSVDD not training due to disabled backward pass" -
https://github.com/yzhao062/pyod/pull/704 (pyod's DeepSVDD.fit had the backward call
commented out - issue #606 - so the network never learned and the scores came from the
initial weights; simply uncommenting it raised a double-backward error because the
weight penalty was built once outside the loop, which the PR fixed by rebuilding it every
batch; its table shows the master branch's loss flat over 40 epochs). Here the bias-free
Deep SVDD MLP (64-32-16) on the digits, 0 the normal class, the center from the initial
outputs, the L2 weight penalty added to the loss as pyod does.
Fix: call ``loss.backward()`` (with the penalty rebuilt inside the batch loop).

Measured (500 Adam steps, batch 32, 118 normal training images; 60 held-out normals, 240
held-out anomalies, seeds 0/1000): held-out AUROC 0.92/0.95 for the bug (the random
network's distances already separate the digit 0 fairly well), 0.98/0.99 for the fixed
twin - a third to a quarter of the mis-ranked pairs.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._one_class import auroc, index_batches, one_class_digits

TITLE = "Fix DeepSVDD not training due to disabled backward pass"
LINK = "https://github.com/yzhao062/pyod/pull/704"
EXPECTED = ("NO_GRADIENT",)
STEPS = 500
EPS = 0.1
PENALTY = 1e-5      # pyod's weight penalty strength (added to the loss)


def svdd_network():
    return nn.Sequential(nn.Linear(64, 32, bias=False), nn.LeakyReLU(),
                         nn.Linear(32, 16, bias=False), nn.LeakyReLU())


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    normals, _, test_x, is_anomaly = one_class_digits(seed=0)
    model = svdd_network()
    with torch.no_grad():
        center = model(normals).mean(0)
        small = center.abs() < EPS
        center[small] = EPS * torch.where(center[small] < 0, -1.0, 1.0)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(normals), steps, seed=0):
            penalty = PENALTY * sum(p.norm() for p in model.parameters())  # rebuilt per batch
            loss = ((model(normals[index]) - center) ** 2).sum(1).mean() + penalty
            optimizer.zero_grad()
            if fixed:
                loss.backward()
            # BUG: loss.backward() commented out - step() finds no gradients
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        scores = ((model(test_x) - center) ** 2).sum(1)
    mon.held_out_auroc = auroc(scores, is_anomaly)
    return mon
