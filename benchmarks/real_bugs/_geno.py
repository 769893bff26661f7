"""Synthetic DNA for the genomics cases (batch 223): random A/C/G/T sequences with planted
motifs, one-hot encoded (A, C, G, T channels, so reversing the channel axis complements a
base), and a small motif-scanning CNN. Kept small: each case shows its own bug."""
import numpy as np
import torch
from torch import nn

BASES = "ACGT"


def random_ids(n, length, rng):
    """(n, length) int64 base ids in 0..3."""
    return rng.integers(0, 4, size=(n, length))


def motif_ids(motif):
    return np.array([BASES.index(b) for b in motif])


def revcomp_ids(ids):
    """The reverse complement of base ids (A<->T, C<->G is 3 - id in the ACGT order)."""
    return (3 - ids)[..., ::-1]


def plant(ids, rows, motif, rng):
    """Write ``motif`` (ids) at a random position of every row in ``rows`` (in place)."""
    k = len(motif)
    for r in rows:
        start = rng.integers(0, ids.shape[1] - k + 1)
        ids[r, start:start + k] = motif


def one_hot(ids):
    """(n, length) ids -> (n, 4, length) float32 one-hot, channels A, C, G, T."""
    return torch.nn.functional.one_hot(torch.as_tensor(np.ascontiguousarray(ids)), 4) \
        .permute(0, 2, 1).float()


class MotifCNN(nn.Module):
    """Conv1d motif scanner -> ReLU -> global max pool -> linear head."""

    def __init__(self, filters=16, kernel=8, outputs=1, channels=4):
        super().__init__()
        self.conv = nn.Conv1d(channels, filters, kernel)
        self.head = nn.Linear(filters, outputs)

    def forward(self, x):
        return self.head(torch.relu(self.conv(x)).amax(dim=-1))


def index_batches(n, steps, batch_size=32, seed=0):
    """``steps`` shuffled batches of row indices, reshuffled every epoch."""
    rng = np.random.default_rng(seed)
    done = 0
    while True:
        order = torch.from_numpy(rng.permutation(n))
        for start in range(0, n - batch_size + 1, batch_size):
            yield order[start:start + batch_size]
            done += 1
            if done == steps:
                return


@torch.no_grad()
def binary_accuracy(model, x, y):
    model.eval()
    out = model(x).squeeze(-1)
    model.train()
    return float(((out > 0).float() == y).float().mean())


def spearman(a, b):
    """Rank correlation of two 1-D tensors."""
    ra = a.argsort().argsort().float()
    rb = b.argsort().argsort().float()
    ra, rb = ra - ra.mean(), rb - rb.mean()
    return float((ra * rb).sum() / (ra.norm() * rb.norm()))
