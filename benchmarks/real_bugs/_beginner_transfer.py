"""Shared pieces of the batch-246 beginner transfer-learning reports: a small VGG-style
"pretrained" CNN (conv-ReLU features without batch norm, then a classifier of Linear -
ReLU - Linear, like torchvision's VGG ``features`` / ``classifier``), pretrained on a source
task (telling apart the digits 0-4 among the first 900 colour digits of ``_pretrained_cnn``,
inputs normalised by the source set's channel means and standard deviations), then fine-tuned
on the other digits (all ten classes) as a first tutorial fine-tunes an ImageNet VGG."""
import copy
import functools

import torch
from torch import nn

from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._pretrained_cnn import (SOURCE_ROWS, accuracy, channel_statistics,
                                                  rgb_digits, target_task, torch_preprocess)

__all__ = ["VGGish", "accuracy", "batches", "pretrained_vggish", "target_task",
           "torch_preprocess"]

PRETRAIN_STEPS = 200
SOURCE_CLASSES = 5
HIDDEN = 64


class VGGish(nn.Module):
    """``features`` (two conv-ReLU blocks, max-pooled, flattened to 64) and ``classifier``
    (Linear(64, 64) - ReLU - Linear(64, classes)), named as torchvision's VGG names them."""

    def __init__(self, classes=SOURCE_CLASSES):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(),
                                      nn.MaxPool2d(2),
                                      nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(),
                                      nn.AdaptiveAvgPool2d(2), nn.Flatten())
        self.classifier = nn.Sequential(nn.Linear(64, HIDDEN), nn.ReLU(),
                                        nn.Linear(HIDDEN, classes))

    def forward(self, x):
        return self.classifier(self.features(x))


def pretrained_vggish(seed=1):
    """A fresh copy of the pretrained model (its source head still on) and the source
    set's channel statistics (what its model card would list)."""
    model, stats = _pretrain(seed)
    return copy.deepcopy(model), stats


@functools.lru_cache(maxsize=None)
def _pretrain(seed):
    torch.manual_seed(seed)
    x, y = rgb_digits()
    x, y = x[:SOURCE_ROWS], y[:SOURCE_ROWS]
    keep = y < SOURCE_CLASSES
    x, y = x[keep], y[keep]
    stats = channel_statistics(x)
    model = VGGish()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    for xb, yb in batches(torch_preprocess(x, stats), y, PRETRAIN_STEPS, seed=seed):
        optimizer.zero_grad()
        nn.functional.cross_entropy(model(xb), yb).backward()
        optimizer.step()
    return model.eval(), stats
