"""A hand-written federated loop's pieces the federated-learning cases share: the digits
split over a few clients by label (non-IID: each client holds two shards of label-sorted
training digits, so mostly two classes), a held-out set, client mini-batches and a plain
state_dict average and one client's local training (each case shows its own rounds and its
bug)."""
import numpy as np
import torch

from benchmarks.real_bugs._common import classification

HELD_OUT = 400


def federated_digits(clients=5, shards_per_client=2, seed=0):
    """([(x, y) per client], (x_test, y_test)): the digits shuffled, 400 held out, the rest
    sorted by label, cut into ``clients * shards_per_client`` shards and dealt at random."""
    x, y = classification()
    rng = np.random.default_rng(seed)
    order = torch.from_numpy(rng.permutation(len(x)))
    x, y = x[order], y[order]
    test = x[:HELD_OUT], y[:HELD_OUT]
    x, y = x[HELD_OUT:], y[HELD_OUT:]
    by_label = torch.argsort(y, stable=True)
    shards = np.array_split(by_label.numpy(), clients * shards_per_client)
    dealt = rng.permutation(len(shards))
    parts = []
    for k in range(clients):
        index = np.concatenate([shards[s] for s in dealt[k::clients]])
        parts.append((x[index], y[index]))
    return parts, test


def local_batches(x, y, steps, batch_size, rng):
    """``steps`` random mini-batches of one client's data."""
    for _ in range(steps):
        index = torch.from_numpy(rng.choice(len(x), batch_size, replace=False))
        yield x[index], y[index]


def train_locally(mon, client, optimizer, x, y, steps, batch_size, rng):
    """One client's local training: ``steps`` SGD steps of ``client`` on its ``(x, y)``
    mini-batches, each closed by the watching monitor's ``mon.step``; returns the steps
    taken. The cases' bugs lie around it (what is loaded before, what is kept after)."""
    taken = 0
    for xb, yb in local_batches(x, y, steps, batch_size, rng):
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(client(xb), yb)
        loss.backward()
        optimizer.step()
        mon.step(loss)
        taken += 1
    return taken


def average(states, weights):
    """The weighted average of state_dicts (weights normalised here), key by key; integer
    buffers (BatchNorm's num_batches_tracked) are taken from the first client."""
    total = float(sum(weights))
    out = {}
    for key, first in states[0].items():
        if first.is_floating_point():
            out[key] = sum(s[key] * (w / total) for s, w in zip(states, weights))
        else:
            out[key] = first.clone()
    return out


def accuracy(model, x, y):
    was = model.training
    model.eval()
    with torch.no_grad():
        acc = (model(x).argmax(1) == y).float().mean().item()
    model.train(was)
    return acc
