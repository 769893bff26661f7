"""A convolutional network with BatchNorm trained on mini-batches of one image.

Reported: "question on MNIST model 03_ConvBatchNorm" -
https://github.com/microsoft/CNTK/issues/905 ("A value of 1 delivers no useful result at
all (error rate > 50%)"; also https://github.com/xuebinqin/BASNet/issues/42). With one
image per batch, train-mode batch statistics are those of a single image: the running
averages used in eval mode describe something else, and evaluation collapses.
Fix: batches of 32 (or GroupNorm/LayerNorm when the batch must stay tiny).
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "question on MNIST model 03_ConvBatchNorm"
LINK = "https://github.com/microsoft/CNTK/issues/905"
EXPECTED = ("BATCHNORM_TINY_BATCH",)
STEPS = 150


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification(images=True)
    model = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                          nn.MaxPool2d(2), nn.Conv2d(8, 16, 3, padding=1), nn.BatchNorm2d(16),
                          nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(64, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    batch_size = 32 if fixed else 1         # BUG: one image per batch-norm batch
    return train_watched(model, optimizer, loss_fn, batches(x, y, steps, batch_size=batch_size),
                         **watch)
