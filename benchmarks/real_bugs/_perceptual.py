"""A small "pretrained" perceptual network for the batch-116 perceptual-loss and style-transfer
reports (torchvision and the LPIPS weights are not available here): a conv net trained for a
few steps to classify the 8x8 digits, its head thrown away, wrapped the way LPIPS wraps VGG
or AlexNet. It reads images in [-1, 1] (LPIPS' convention), shifts and scales them with fixed
buffers to the statistics it was trained on, and returns the feature maps of its two blocks;
``distance`` is the LPIPS recipe on them (features unit-normalised over channels, squared
difference, a non-negative 1x1 'lin' layer behind dropout, spatial mean, summed)."""
import copy
import functools

import torch
from torch import nn
from torch.nn import functional as F

from benchmarks.real_bugs._common import batches, classification

PRETRAIN_STEPS = 150
SOURCE_ROWS = 1000       # the "pretraining set": the first 1,000 digits
HELD_OUT = 297           # the last 297 digits are every case's held-out images
CHANNELS = (16, 32)


class FeatureNet(nn.Module):
    """Two conv blocks (optionally with batch norm) behind a fixed scaling layer, and LPIPS-
    style 'lin' layers (dropout, then a non-negative 1x1 conv) on each block's features."""

    def __init__(self, batch_norm=False, dropout=0.5):
        super().__init__()
        self.register_buffer("shift", torch.zeros(1, 1, 1, 1))
        self.register_buffer("scale", torch.ones(1, 1, 1, 1))
        norm = (lambda c: nn.BatchNorm2d(c)) if batch_norm else (lambda c: nn.Identity())
        self.block1 = nn.Sequential(nn.Conv2d(1, CHANNELS[0], 3, padding=1), norm(CHANNELS[0]),
                                    nn.ReLU())
        self.block2 = nn.Sequential(nn.Conv2d(CHANNELS[0], CHANNELS[1], 3, padding=1, stride=2),
                                    norm(CHANNELS[1]), nn.ReLU())
        self.lins = nn.ModuleList(nn.Sequential(nn.Dropout(dropout), nn.Conv2d(c, 1, 1, bias=False))
                                  for c in CHANNELS)
        for lin, c in zip(self.lins, CHANNELS):
            nn.init.constant_(lin[1].weight, 1.0)

    def features(self, x):
        """The two blocks' feature maps of images in [-1, 1]."""
        h1 = self.block1((x - self.shift) / self.scale)
        return [h1, self.block2(h1)]

    def forward(self, x, y):
        """Per-image LPIPS-style distance between images ``x`` and ``y`` (both in [-1, 1])."""
        total = 0
        for lin, fx, fy in zip(self.lins, self.features(x), self.features(y)):
            nx = fx / (fx.pow(2).sum(1, keepdim=True).sqrt() + 1e-10)
            ny = fy / (fy.pow(2).sum(1, keepdim=True).sqrt() + 1e-10)
            total = total + lin((nx - ny) ** 2).mean((1, 2, 3))
        return total


def pretrained(batch_norm=False, dropout=0.5, seed=1):
    """A fresh copy of the pretrained feature net, in eval mode, every parameter frozen (as
    LPIPS returns it)."""
    return copy.deepcopy(_pretrain(batch_norm, dropout, seed))


@functools.lru_cache(maxsize=None)
@torch.enable_grad()
def _pretrain(batch_norm, dropout, seed):
    torch.manual_seed(seed)
    x, y = classification(images=True)
    x = x[:SOURCE_ROWS] * 2 - 1                     # [-1, 1], the LPIPS convention
    net = FeatureNet(batch_norm, dropout)
    net.shift.fill_(float(x.mean()))
    net.scale.fill_(float(x.std()))
    head = nn.Sequential(nn.AdaptiveAvgPool2d(2), nn.Flatten(), nn.Linear(4 * CHANNELS[1], 10))
    optimizer = torch.optim.Adam(list(net.parameters()) + list(head.parameters()), lr=3e-3)
    for xb, yb in batches(x, y[:SOURCE_ROWS], PRETRAIN_STEPS, seed=seed):
        optimizer.zero_grad()
        F.cross_entropy(head(net.features(xb)[1]), yb).backward()
        optimizer.step()
    net.eval()
    for p in net.parameters():
        p.requires_grad_(False)
    return net


def digits_01():
    """All digits as (N, 1, 8, 8) images in [0, 1] and their labels."""
    return classification(images=True)


def degrade(x, seed):
    """The restoration task's input: the digit with 40% of its pixels dropped and Gaussian
    noise (sd 0.2) added (images in [0, 1])."""
    g = torch.Generator().manual_seed(seed)
    keep = (torch.rand(x.shape, generator=g) > 0.4).float()
    return x * keep + 0.2 * torch.randn(x.shape, generator=g)


def generator():
    """A small fully convolutional restorer whose sigmoid output is an image in [0, 1]."""
    return nn.Sequential(nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(),
                         nn.Conv2d(32, 32, 3, padding=1), nn.ReLU(),
                         nn.Conv2d(32, 1, 3, padding=1), nn.Sigmoid())


def held_out_scores(model, seed=7):
    """(pixel MSE, LPIPS-style distance read correctly) of ``model``'s restorations of the
    held-out digits against the clean digits."""
    x, _ = digits_01()
    clean = x[-HELD_OUT:]
    model.eval()
    with torch.no_grad():
        out = model(degrade(clean, seed))
        judge = pretrained()
        lp = judge(out * 2 - 1, clean * 2 - 1).mean()
    return round(float(F.mse_loss(out, clean)), 4), round(float(lp), 4)


# --- Gatys-style optimisation and feed-forward style networks --------------------------------

STYLE_WEIGHT = 10.0      # the style term's weight, with the Gram matrix read per pixel (/ h*w)
CONTENT_ROWS = 16        # the images the optimisation-based cases stylise: the last 16 digits


def stripes():
    """The style image: diagonal stripes, one (1, 1, 8, 8) image in [0, 1]."""
    i = torch.arange(8)
    return ((i[:, None] + i[None, :]) % 3 == 0).float().view(1, 1, 8, 8)


def gram(features):
    """Per-image Gram matrices of (B, C, H, W) features, divided by the H*W positions
    summed over (Gatys' reference PyTorch code): (B, C, C)."""
    b, c, h, w = features.shape
    flat = features.reshape(b, c, h * w)
    return flat @ flat.transpose(1, 2) / (h * w)


class Canvas(nn.Module):
    """The image being optimised, as a parameter, in front of the frozen feature net
    (``space``: 'unit' stores it in [0, 1], 'lpips' in the net's own [-1, 1])."""

    def __init__(self, start, space="unit"):
        super().__init__()
        self.space = space
        self.image = nn.Parameter(start.clone() if space == "unit" else start * 2 - 1)
        self.net = pretrained()
        del self.net.lins        # Gatys' recipe reads the features only (no LPIPS 'lin' layers)

    def unit_image(self):
        """The image in [0, 1], for display and scoring (a new tensor)."""
        image = self.image.detach()
        return (image if self.space == "unit" else (image + 1) / 2).clamp(0, 1)

    def forward(self):
        return self.net.features(self.image * 2 - 1 if self.space == "unit" else self.image)


def style_and_content_distances(images, content, style=None):
    """(style, content) distances of images in [0, 1], read with the per-pixel Gram matrix:
    the mean over images of the summed per-layer mean squared Gram difference to the style
    image's, and the mean squared block-2 feature difference to ``content``'s."""
    net = pretrained()
    style = stripes() if style is None else style
    with torch.no_grad():
        feats = net.features(images * 2 - 1)
        targets = [gram(f) for f in net.features(style * 2 - 1)]
        per_image = sum(((gram(f) - t) ** 2).mean((1, 2)) for f, t in zip(feats, targets))
        content_gap = F.mse_loss(feats[1], net.features(content * 2 - 1)[1])
    return round(float(per_image.mean()), 3), round(float(content_gap), 3)
