"""A small "pretrained" CNN backbone for the batch-73 fine-tuning reports (torchvision is
not available here): a conv net with batch norm trained on colour versions of 900 digits
under a fixed preprocessing recipe, returned without its head. Cases then put a new head on
it and fine-tune on other digits, as one fine-tunes a downloaded ImageNet model."""
import copy
import functools

import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification

PRETRAIN_STEPS = 100
SOURCE_ROWS = 900      # the "pretraining set": the first 900 digits, all ten classes
TARGET_ROWS = 500      # the fine-tuning set: 500 of the other digits
HELD_OUT = 297         # and the last 297 held out
# per-channel gains and offsets that give the three channels different statistics (so
# their order matters, as colour channels' does): red is the digit, green a dimmer inverse,
# blue a faint copy
GAINS = (1.0, -0.6, 0.3)
OFFSETS = (0.0, 0.8, 0.1)
# "caffe"-style recipe: BGR order, 0-255 pixels minus per-channel means (Keras' VGG/ResNet50)
CAFFE_MEANS_BGR = (9.0, 150.0, 20.0)


def rgb_digits():
    """The digits as (N, 3, 8, 8) float32 'RGB' images in [0, 1], and their labels."""
    x, y = classification(images=True)
    gains = torch.tensor(GAINS).view(1, 3, 1, 1)
    offsets = torch.tensor(OFFSETS).view(1, 3, 1, 1)
    return (x * gains + offsets).clamp(0, 1), y


def channel_statistics(x):
    """Per-channel mean and std of (N, 3, H, W) images, shaped (1, 3, 1, 1)."""
    return x.mean((0, 2, 3), keepdim=True), x.std((0, 2, 3), keepdim=True)


def torch_preprocess(x, stats):
    """torchvision-style: RGB in [0, 1], minus the pretraining set's channel mean, over its std."""
    mean, std = stats
    return (x - mean) / std


def caffe_preprocess(x):
    """caffe-style: RGB -> BGR, scaled to 0-255, minus per-channel means, not divided."""
    return x.flip(1) * 255 - torch.tensor(CAFFE_MEANS_BGR).view(1, 3, 1, 1)


FEATURES = 64


def backbone():
    """Conv-BN-ReLU twice, pooled to 2x2, and a linear-BN-ReLU neck: 64 features."""
    return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                         nn.Conv2d(8, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
                         nn.AdaptiveAvgPool2d(2), nn.Flatten(),
                         nn.Linear(64, FEATURES), nn.BatchNorm1d(FEATURES), nn.ReLU())


def pretrained_backbone(recipe="torch", seed=1, steps=PRETRAIN_STEPS):
    """A fresh copy of ``_pretrain``'s body (pretrained once per process and recipe)."""
    body, stats = _pretrain(recipe, seed, steps)
    return copy.deepcopy(body), stats


@functools.lru_cache(maxsize=None)
def _pretrain(recipe, seed, steps):
    """The body after ``steps`` Adam steps on the first ``SOURCE_ROWS`` digits under
    ``recipe`` ('torch' or 'caffe' preprocessing), its head thrown away, in eval mode; and
    the torch recipe's channel statistics (what its model card would list)."""
    torch.manual_seed(seed)
    x, y = rgb_digits()
    source = slice(0, SOURCE_ROWS)
    stats = channel_statistics(x[source])
    inputs = torch_preprocess(x, stats) if recipe == "torch" else caffe_preprocess(x)
    body = backbone()
    model = nn.Sequential(body, nn.Linear(FEATURES, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    for xb, yb in batches(inputs[source], y[source], steps, seed=seed):
        optimizer.zero_grad()
        nn.functional.cross_entropy(model(xb), yb).backward()
        optimizer.step()
    return body.eval(), stats


def target_task(train_rows=TARGET_ROWS):
    """The target task: the digits the backbone never saw (rows after ``SOURCE_ROWS``) as
    'RGB' images in [0, 1]: ``train_rows`` training rows and ``HELD_OUT`` held-out rows."""
    x, y = rgb_digits()
    x, y = x[SOURCE_ROWS:], y[SOURCE_ROWS:]
    return (x[:train_rows], y[:train_rows]), (x[-HELD_OUT:], y[-HELD_OUT:])


def accuracy(model, x, y):
    model.eval()
    with torch.no_grad():
        return round(float((model(x).argmax(1) == y).float().mean()), 3)
