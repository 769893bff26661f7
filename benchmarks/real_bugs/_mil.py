"""Shared pieces of the multiple-instance learning cases (batch 231): bags of 8x8 digits
("tiles" of a "slide") as fixed-size (bags, instances, features) tensors, a small
attention-MIL network (instance encoder, tanh attention with a softmax over the instances,
bag classifier), a max-pooling instance classifier, and a held-out bag accuracy."""
import numpy as np
import torch
from torch import nn

from benchmarks.real_bugs._noisy_labels import digits_split  # noqa: F401 (re-exported)


def index_bags(y, bags, size, target, seed=0, positive_share=0.5, targets_in_positive=(1, 2)):
    """(bags, size) int64 rows into ``y`` and the 0/1 bag labels: a positive bag holds the
    ``target`` digit 1 or 2 times (``targets_in_positive``), a negative bag never."""
    rng = np.random.default_rng(seed)
    has = np.flatnonzero(y.numpy() == target)
    without = np.flatnonzero(y.numpy() != target)
    rows = rng.choice(without, (bags, size))
    labels = (rng.random(bags) < positive_share)
    for b in np.flatnonzero(labels):
        k = int(rng.integers(targets_in_positive[0], targets_in_positive[1] + 1))
        rows[b, rng.choice(size, k, replace=False)] = rng.choice(has, k)
    return torch.from_numpy(rows), torch.from_numpy(labels).float()


class AttentionMIL(nn.Module):
    """Ilse et al.'s attention MIL on (bags, instances, features) -> one logit per bag."""

    def __init__(self, features=64, hidden=64, attention=32):
        super().__init__()
        self.encode = nn.Sequential(nn.Linear(features, hidden), nn.ReLU())
        self.attend = nn.Sequential(nn.Linear(hidden, attention), nn.Tanh(),
                                    nn.Linear(attention, 1))
        self.classify = nn.Linear(hidden, 1)

    def forward(self, bags):
        h = self.encode(bags)                                  # (B, N, hidden)
        weights = torch.softmax(self.attend(h).squeeze(-1), dim=1)
        return self.classify((weights.unsqueeze(-1) * h).sum(1)).squeeze(-1)


class MaxPoolMIL(nn.Module):
    """An instance classifier whose bag logit is the largest instance logit (the max-pooling
    branch of DSMIL / mi-Net)."""

    def __init__(self, features=64, hidden=64):
        super().__init__()
        self.instance = nn.Sequential(nn.Linear(features, hidden), nn.ReLU(),
                                      nn.Linear(hidden, 1))

    def forward(self, bags):
        return self.instance(bags).squeeze(-1).max(dim=1).values


def bag_accuracy(model, bags, labels):
    with torch.no_grad():
        return ((model(bags) > 0).float() == labels).float().mean().item()
