"""Pieces real-bug batch 171's cases share: the 8x8 digits split into a training and a
held-out part, a small MLP, and the held-out accuracy (each case writes its own optimizer
and loop, where its report's mistake lives)."""
import torch

from benchmarks.real_bugs._common import classification, index_batches, mlp

HELD_OUT = 497          # digits kept out of training (the other 1,300 train)


def split():
    """(x_train, y_train, x_held, y_held): a permutation of the 1,797 digits drawn from
    torch's global generator (the case seeds it first)."""
    x, y = classification()
    order = torch.randperm(len(x))
    train, held = order[HELD_OUT:], order[:HELD_OUT]
    return x[train], y[train], x[held], y[held]


def model():
    return mlp(64, 64, 10)


def batches(x, y, steps, batch_size=64, seed=0):
    for index in index_batches(len(x), steps, batch_size, seed):
        yield x[index], y[index]


@torch.no_grad()
def accuracy(net, x, y):
    out = net(x)
    if not torch.isfinite(out).all():
        return 0.0
    return (out.argmax(1) == y).float().mean().item()
