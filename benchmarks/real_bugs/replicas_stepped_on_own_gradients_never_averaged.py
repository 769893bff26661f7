"""Data parallelism written by hand and run as 8 "workers" on one device: each worker holds
its own copy (replica) of the model and its own optimizer, reads its own shard of the
training set (every 8th row, as a distributed sampler deals them), runs backward on its
rows and steps, but the gradients are never averaged across the workers. The replicas
drift apart, and the model the run keeps (worker 0's, the one saved and evaluated) has
learnt from one eighth of the data, on batches of 8.

Reported: "different node has different parameters" -
https://github.com/pytorch/examples/issues/483 ("each model in all node has different
gradients, so it results to different model among GPUs"; the fix the user found and the
maintainer confirmed: all_reduce the gradients and divide by the world size before
step()). Here an MLP (64 -> 128 -> 10) on the 8x8 digits, 8 replicas, 8 rows per replica
per step (a global batch of 64), SGD lr 0.05 momentum 0.9; worker 0's replica is watched
and evaluated. Fix: average each parameter's gradient over the replicas before each step.

Measured (held-out accuracy of worker 0's replica on 500 digits after the run): seed 0:
0.918 with the bug, 0.958 fixed; seeds + 1000: 0.930 vs 0.962.
"""
import copy

import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._reg169 import accuracy, split

TITLE = "different node has different parameters"
LINK = "https://github.com/pytorch/examples/issues/483"
EXPECTED = ("OVERFITTING",)
STEPS = 300
WORKERS = 8
PER_WORKER = 8


def shard_batches(n, rank, steps, seed=0):
    """Worker ``rank``'s batches: its shard (rows rank, rank + WORKERS, ...), reshuffled
    every epoch."""
    shard = np.arange(rank, n, WORKERS)
    rng = np.random.default_rng(seed + rank)
    done = 0
    while done < steps:
        order = rng.permutation(shard)
        for start in range(0, len(order) - PER_WORKER + 1, PER_WORKER):
            yield torch.from_numpy(order[start:start + PER_WORKER])
            done += 1
            if done == steps:
                return


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, xh, yh = split()
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
    replicas = [model] + [copy.deepcopy(model) for _ in range(WORKERS - 1)]
    optimizers = [torch.optim.SGD(r.parameters(), lr=0.05, momentum=0.9) for r in replicas]
    loaders = [shard_batches(len(x), rank, steps) for rank in range(WORKERS)]
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizers[0], **watch) as mon:
        for indices in zip(*loaders):
            losses = []
            for replica, optimizer, index in zip(replicas, optimizers, indices):
                optimizer.zero_grad()
                loss = loss_fn(replica(x[index]), y[index])
                loss.backward()
                losses.append(loss)
            if fixed:                           # the all-reduce, by hand: mean over workers
                for tensors in zip(*(r.parameters() for r in replicas)):
                    mean = torch.stack([p.grad for p in tensors]).mean(dim=0)
                    for p in tensors:
                        p.grad.copy_(mean)
            for optimizer in optimizers:        # BUG: each replica steps on its own gradient
                optimizer.step()
            mon.step(losses[0])
    mon.held_out_accuracy = accuracy(model, xh, yh)
    return mon
