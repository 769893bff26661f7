"""A WeightedRandomSampler given one weight per CLASS instead of one per SAMPLE: the sampler
draws indices ``0 .. len(weights) - 1`` only, so every batch is made of the first few
samples of the dataset, repeated, and the model memorises them.

Reported: "hotfix changes" - https://github.com/deep-voice/soundbay/pull/49 ("Bug using
random sampler in a problematic way ... `WeightedRandomSampler` uses `torch.multinomial`.
This class assigns weights to *each sample* and so it actually will choose the same samples
(The first and second with the probabilities we assigned). What needed to be done is to
assign to *each* sample the prior probability"). Here the ten digit classes: the sampler
gets ten inverse class frequencies and draws from the first ten images only. Fix: weight
each sample by its class's weight, ``class_weights[labels]``.
"""
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset, WeightedRandomSampler

from benchmarks.real_bugs._common import classification, mlp, train_watched

TITLE = "hotfix changes"
LINK = "https://github.com/deep-voice/soundbay/pull/49"
EXPECTED = ("BATCHES_FROM_FEW_SAMPLES",)
STEPS = 150


def sampled_batches(x, y, steps, per_sample, batch_size=64):
    """``steps`` batches drawn by a WeightedRandomSampler, epoch after epoch."""
    class_weights = 1.0 / torch.bincount(y).double()
    weights = class_weights[y] if per_sample else class_weights   # BUG: one per class
    generator = torch.Generator().manual_seed(0)
    sampler = WeightedRandomSampler(weights, num_samples=len(y), generator=generator)
    loader = DataLoader(TensorDataset(x, y), batch_size=batch_size, sampler=sampler,
                        drop_last=True)
    done = 0
    while True:
        for xb, yb in loader:
            yield xb, yb
            done += 1
            if done == steps:
                return


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    return train_watched(model, optimizer, nn.CrossEntropyLoss(),
                         sampled_batches(x, y, steps, per_sample=fixed), **watch)
