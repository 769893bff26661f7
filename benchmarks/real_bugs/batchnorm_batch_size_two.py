"""An MLP with BatchNorm1d trained on mini-batches of two samples.

Reported: "about BatchNorm in your experiments." -
https://github.com/YvanYin/GoalFlow/issues/17 ("BatchNorm would perform badly with tiny
batch size which leads to training instability"; the authors confirm the instability).
With two samples, each feature is normalised to exactly -1 and +1 in training; the
running statistics used in eval mode do not match. Fix: larger batches, or LayerNorm.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "about BatchNorm in your experiments."
LINK = "https://github.com/YvanYin/GoalFlow/issues/17"
EXPECTED = ("BATCHNORM_TINY_BATCH",)
STEPS = 150


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = nn.Sequential(nn.Linear(64, 64), nn.BatchNorm1d(64), nn.ReLU(), nn.Linear(64, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    batch_size = 32 if fixed else 2         # BUG: two samples per batch-norm batch
    return train_watched(model, optimizer, loss_fn, batches(x, y, steps, batch_size=batch_size),
                         **watch)
