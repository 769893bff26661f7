"""Shared pieces of the batch-255 cases (beginner siamese and triplet networks): the 8x8
digits split into 1,297 training and 500 held-out images, a small MLP tower that embeds a
digit, samplers for balanced pairs and for P x K batches, and the held-out metric.

Held-out quality is 1-nearest-neighbour accuracy: each held-out digit takes the label of
the training digit whose embedding is nearest (Euclidean), the way a verification or
few-shot system reads a metric embedding.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import classification

TRAIN = 1297


def digits():
    """(x_train, y_train, x_test, y_test), the last 500 digits held out."""
    x, y = classification()
    return x[:TRAIN], y[:TRAIN], x[TRAIN:], y[TRAIN:]


def tower(dim=16, hidden=128):
    return nn.Sequential(nn.Linear(64, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                         nn.Linear(hidden, dim))


def new_generator():
    """A private generator seeded from the torch stream (so seed shifts reach it)."""
    g = torch.Generator()
    g.manual_seed(int(torch.randint(10**6, ())))
    return g


def balanced_pairs(y, count, generator):
    """``count`` index pairs, the first half of one digit, the rest drawn at random;
    returns (first, second, same) with same = 1.0 where the digits match."""
    first = torch.randint(0, len(y), (count,), generator=generator)
    second = torch.randint(0, len(y), (count,), generator=generator)
    for k in range(count // 2):
        while y[second[k]] != y[first[k]]:
            second[k] = torch.randint(0, len(y), (1,), generator=generator)
    return first, second, (y[first] == y[second]).float()


def pk_batch(y, classes, per_class, generator):
    """Indices of a P x K batch: ``classes`` digits, ``per_class`` examples of each."""
    chosen = torch.randperm(10, generator=generator)[:classes]
    index = []
    for c in chosen:
        pool = (y == c).nonzero()[:, 0]
        index.append(pool[torch.randperm(len(pool), generator=generator)[:per_class]])
    return torch.cat(index)


@torch.no_grad()
def nearest_neighbour_accuracy(embed, x_train, y_train, x_test, y_test):
    was = embed.training
    embed.eval()
    train, test = embed(x_train), embed(x_test)
    embed.train(was)
    nearest = torch.cdist(test, train).argmin(1)
    return (y_train[nearest] == y_test).float().mean().item()
