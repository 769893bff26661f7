"""A loss summed over the batch instead of averaged: the gradient grows with the batch size,
so a learning rate chosen for the mean is multiplied by the batch size (256 here) and
plain SGD overshoots and blows up.

Reported: "Should we use mean rather than sum for batchwise loss reduction?" -
https://github.com/ai-safety-foundation/sparse_autoencoder/issues/63 (the training
pipeline summed the batch's losses; "you don't want loss magnitude to depend on batch
size"; the co-author: "No good reason for this!", fixed). Here an autoencoder of the
digits (64 -> 32 -> 64, as a sparse autoencoder reconstructs its inputs) trained with
SGD at a learning rate that suits the mean. Fix: ``reduction="mean"``.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "Should we use mean rather than sum for batchwise loss reduction?"
LINK = "https://github.com/ai-safety-foundation/sparse_autoencoder/issues/63"
EXPECTED = ("LR_TOO_HIGH", "LOSS_DIVERGING", "EXPLODING_GRADIENTS", "NAN_LOSS")
STEPS = 120
BATCH = 256


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, _ = classification()
    model = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 64))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    reduction = "mean" if fixed else "sum"               # BUG: summed over the batch
    loss_fn = nn.MSELoss(reduction=reduction)
    return train_watched(model, optimizer, loss_fn, batches(x, x, steps, batch_size=BATCH),
                         **watch)
