"""Pieces real-bug batch 254's cases share (beginner use of optimizers and learning-rate
schedulers): the 8x8 digits split into a training and a held-out part, small MLPs, shuffled
mini-batches and the held-out accuracy. Each case writes its own optimizer, scheduler and
loop, where its report's mistake lives."""
import torch
from torch import nn

from benchmarks.real_bugs._common import classification, index_batches

HELD_OUT = 497          # digits kept out of training (the other 1,300 train)


def split():
    """(x_train, y_train, x_held, y_held): a permutation of the 1,797 digits drawn from
    torch's global generator (the case seeds it first)."""
    x, y = classification()
    order = torch.randperm(len(x))
    train, held = order[HELD_OUT:], order[:HELD_OUT]
    return x[train], y[train], x[held], y[held]


def mlp(hidden=64):
    """64 -> hidden -> hidden -> 10 with ReLUs."""
    return nn.Sequential(nn.Linear(64, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                         nn.Linear(hidden, 10))


def batches(x, y, steps, batch_size=64, seed=0):
    """``steps`` shuffled mini-batches (reshuffled every epoch) from a private generator."""
    for index in index_batches(len(x), steps, batch_size, seed):
        yield x[index], y[index]


@torch.no_grad()
def accuracy(net, x, y):
    """Held-out accuracy in eval mode (0 when the outputs are not finite)."""
    was_training = net.training
    net.eval()
    out = net(x)
    net.train(was_training)
    if not torch.isfinite(out).all():
        return 0.0
    return (out.argmax(1) == y).float().mean().item()


@torch.no_grad()
def mean_loss(net, x, y):
    """Cross-entropy of ``net`` on (x, y) in eval mode, as a float."""
    was_training = net.training
    net.eval()
    loss = nn.functional.cross_entropy(net(x), y).item()
    net.train(was_training)
    return loss
