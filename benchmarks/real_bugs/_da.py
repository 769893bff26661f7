"""Pieces the domain-adaptation cases of batch 195 share: a labelled source domain and an
unlabelled, shifted target domain cut from the 8x8 digits, each split into a training part
and a held-out part, a small batch-normalised classifier, source pre-training, and accuracy.
Each case keeps its own method (Tent, CORAL, DANN, ...) and its bug."""
import numpy as np
import torch
from torch import nn

from benchmarks.real_bugs._common import classification

BATCH = 64


def domains(seed, contrast=0.5, offset=0.4):
    """(source_train, source_test, target_train, target_test), each (inputs, labels): the
    digits shuffled with ``seed`` and halved into source and target; the target's contrast
    lowered and lifted (x * contrast + offset), the shift the adaptation has to bridge; a
    quarter of each domain held out."""
    x, y = classification()
    order = torch.from_numpy(np.random.default_rng(seed).permutation(len(x)))
    half = len(x) // 2
    src, tgt = order[:half], order[half:]
    xs, ys = x[src], y[src]
    xt, yt = x[tgt] * contrast + offset, y[tgt]
    cut_s, cut_t = len(xs) * 3 // 4, len(xt) * 3 // 4
    return ((xs[:cut_s], ys[:cut_s]), (xs[cut_s:], ys[cut_s:]),
            (xt[:cut_t], yt[:cut_t]), (xt[cut_t:], yt[cut_t:]))


class BatchNormNet(nn.Module):
    """64 -> 64 -> 64 -> 10, each hidden layer linear, batch norm, ReLU."""

    def __init__(self, hidden=64):
        super().__init__()
        self.features = nn.Sequential(
            nn.Linear(64, hidden), nn.BatchNorm1d(hidden), nn.ReLU(),
            nn.Linear(hidden, hidden), nn.BatchNorm1d(hidden), nn.ReLU())
        self.head = nn.Linear(hidden, 10)

    def forward(self, x):
        return self.head(self.features(x))


def pretrain(model, source, steps=300, lr=1e-2, seed=0):
    """Train ``model`` on the labelled source (Adam, cross-entropy), unwatched: the cases
    watch what comes after it."""
    xs, ys = source
    rng = np.random.default_rng(seed)
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    model.train()
    for _ in range(steps):
        i = torch.from_numpy(rng.integers(0, len(xs), BATCH))
        loss = nn.functional.cross_entropy(model(xs[i]), ys[i])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return model


def accuracy(model, data, batch_statistics=False):
    """Share of ``data`` classified right; ``batch_statistics``: batch norm normalises with
    the statistics of the whole set (train mode, running statistics restored after)."""
    x, y = data
    saved = {k: v.clone() for k, v in model.state_dict().items()}
    was_training = model.training
    model.train(batch_statistics)
    with torch.no_grad():
        right = (model(x).argmax(1) == y).float().mean().item()
    model.load_state_dict(saved)
    model.train(was_training)
    return right


def draw(rng, data, size=BATCH):
    """``size`` rows of ``data`` (inputs, labels) drawn at random with ``rng``."""
    i = torch.from_numpy(rng.integers(0, len(data[0]), size))
    return data[0][i], data[1][i]


def is_target(size=BATCH):
    """Domain labels of a batch of ``size`` source rows followed by ``size`` target rows."""
    return torch.cat([torch.zeros(size), torch.ones(size)])
