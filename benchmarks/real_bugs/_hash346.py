"""Pieces the deep-hashing cases of batch 346 share: the 8x8 digits split into a training
set (also the retrieval database) and held-out queries, a small hashing MLP, and mean
average precision under Hamming ranking (a database item is relevant when it has the
query's class)."""
import numpy as np
import torch
from torch import nn

from benchmarks.real_bugs._common import classification


def split(held_out=500, seed=0):
    """(x_train, y_train, x_query, y_query): the digits shuffled once by a fixed seed."""
    x, y = classification()
    order = torch.from_numpy(np.random.default_rng(seed).permutation(len(x)))
    x, y = x[order], y[order]
    return x[held_out:], y[held_out:], x[:held_out], y[:held_out]


class HashMLP(nn.Module):
    """64 pixels -> 128 hidden -> ``bits`` real-valued code units (the hash layer)."""
    def __init__(self, bits=16, hidden=128, squash=None):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(64, hidden), nn.ReLU(), nn.Linear(hidden, bits))
        self.squash = squash

    def forward(self, x):
        u = self.body(x)
        return torch.tanh(u) if self.squash == "tanh" else u


def codes(model, x):
    """The binary codes (+1/-1) the model gives, in eval mode and without gradients."""
    was = model.training
    model.eval()
    with torch.no_grad():
        b = torch.where(model(x) >= 0, 1.0, -1.0)
    model.train(was)
    return b


def hamming_map(query_codes, query_labels, db_codes, db_labels):
    """Mean average precision over the whole database ranked by Hamming distance (ties
    broken by database order)."""
    bits = query_codes.shape[1]
    distance = 0.5 * (bits - query_codes @ db_codes.T)
    order = torch.argsort(distance, dim=1, stable=True)
    relevant = (db_labels[order] == query_labels[:, None]).float()
    hits = relevant.cumsum(1)
    ranks = torch.arange(1, relevant.shape[1] + 1, dtype=torch.float32)
    ap = (hits / ranks * relevant).sum(1) / relevant.sum(1).clamp(min=1)
    return ap.mean().item()


def retrieval_map(model, x_train, y_train, x_query, y_query):
    return hamming_map(codes(model, x_query), y_query, codes(model, x_train), y_train)
