"""Data and models the autoregressive-density cases of batch 122 share (WaveNet-style causal
convolutions over 1-D signals, a gated PixelCNN over the binarised digits, a TCN
forecaster). Each case keeps its own bug; the data draws go through
``np.random.default_rng`` so ``--shift-seeds`` moves them."""
import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from benchmarks.real_bugs._common import classification

LEVELS = 16          # quantisation levels of the periodic "audio" signals
PERIOD = 20          # every signal repeats a pattern of this many samples


def periodic_levels(count, length, seed=0):
    """(count, length) int64 levels in [0, LEVELS): each row repeats its own smooth random
    pattern of PERIOD samples (a note), with one sample in ten redrawn at random (noise). The
    next sample is best predicted from the one a period earlier, beyond a short context."""
    rng = np.random.default_rng(seed)
    t = np.arange(PERIOD)
    rows = []
    for _ in range(count):
        pattern = sum(rng.normal() * np.sin(2 * np.pi * (k + 1) * t / PERIOD + rng.uniform(0, 6.3))
                      for k in range(3))
        pattern = (pattern - pattern.min()) / (np.ptp(pattern) + 1e-9)
        levels = np.rint(pattern * (LEVELS - 1)).astype(np.int64)
        start = rng.integers(0, PERIOD)
        row = np.resize(np.roll(levels, -start), length)
        noisy = rng.random(length) < 0.1
        row[noisy] = rng.integers(0, LEVELS, noisy.sum())
        rows.append(row)
    return torch.from_numpy(np.stack(rows))


def jump_walks(count, length, seed=0):
    """(count, length) float32 in [-1, 1]: a decaying walk that at each step stays, jumps up
    or jumps down by 0.4 (probabilities 1/2, 1/4, 1/4) plus a little noise, so the next value
    given the past is three-peaked: a one-logistic model cannot fit it, a mixture can."""
    rng = np.random.default_rng(seed)
    x = np.zeros((count, length), dtype=np.float32)
    x[:, 0] = rng.uniform(-0.5, 0.5, count)
    for t in range(1, length):
        jump = rng.choice([-0.4, 0.0, 0.4], size=count, p=[0.25, 0.5, 0.25])
        x[:, t] = np.clip(0.8 * x[:, t - 1] + jump + 0.02 * rng.normal(size=count), -1, 1)
    return torch.from_numpy(x)


def row_batches(rows, steps, batch_size=32, seed=0):
    """``steps`` random batches of rows, from a private generator."""
    rng = np.random.default_rng(seed + 7)
    for _ in range(steps):
        yield rows[torch.from_numpy(rng.integers(0, len(rows), batch_size))]


class CausalConv(nn.Module):
    """Kernel-2 dilated convolution padded on the left only: output t reads t and t - d."""
    def __init__(self, channels_in, channels_out, dilation):
        super().__init__()
        self.dilation = dilation
        self.conv = nn.Conv1d(channels_in, channels_out, 2, dilation=dilation)

    def forward(self, x):
        return self.conv(F.pad(x, (self.dilation, 0)))


class WaveNet(nn.Module):
    """Embedded levels (or scalar samples) -> gated residual blocks of dilated causal
    convolutions (dilations 1, 2, 4, 8, 16: receptive field 32) -> ``outputs`` channels per
    time step. Output t has read inputs 0..t. ``conv``: what builds each dilated convolution
    (channels_in, channels_out, dilation)."""
    def __init__(self, outputs, levels=None, channels=32, dilations=(1, 2, 4, 8, 16),
                 conv=CausalConv):
        super().__init__()
        self.levels = levels
        self.inp = nn.Embedding(levels, channels) if levels else nn.Conv1d(1, channels, 1)
        self.filters = nn.ModuleList(conv(channels, 2 * channels, d) for d in dilations)
        self.mixes = nn.ModuleList(nn.Conv1d(channels, channels, 1) for _ in dilations)
        self.head = nn.Sequential(nn.ReLU(), nn.Conv1d(channels, channels, 1), nn.ReLU(),
                                  nn.Conv1d(channels, outputs, 1))

    def forward(self, x):               # (B, T) levels or samples -> (B, outputs, T)
        h = self.inp(x).transpose(1, 2) if self.levels else self.inp(x.unsqueeze(1))
        skip = 0
        for conv, mix in zip(self.filters, self.mixes):
            a, b = conv(h).chunk(2, dim=1)
            z = mix(torch.tanh(a) * torch.sigmoid(b))
            h, skip = h + z, skip + z
        return self.head(skip)


def next_level_nll(model, rows):
    """Held-out cross-entropy (nats per sample) of each next level given the past: the
    output at t scored against the level at t + 1."""
    with torch.no_grad():
        logits = model(rows[:, :-1])
        return F.cross_entropy(logits, rows[:, 1:]).item()


def binarised_digits(seed=0):
    """(train, held-out) binarised 8x8 digits (N, 1, 8, 8): 1,297 and 500, shuffled."""
    x, _ = classification(images=True)
    pixels = (x > 0.5).float()
    order = torch.from_numpy(np.random.default_rng(seed).permutation(len(pixels)))
    return pixels[order[:1297]], pixels[order[1297:]]


class MaskedConv2d(nn.Conv2d):
    """A convolution whose kernel is multiplied by a fixed 0/1 mask in every forward."""
    def __init__(self, c_in, c_out, kernel, mask):
        super().__init__(c_in, c_out, kernel, padding=(kernel[0] // 2, kernel[1] // 2))
        self.register_buffer("mask", mask.expand_as(self.weight).clone())

    def forward(self, x):
        return F.conv2d(x, self.weight * self.mask, self.bias, padding=self.padding)


def stack_mask(kind, first, size=3):
    """The gated PixelCNN's masks on a ``size`` x ``size`` kernel: ``vertical`` keeps the
    rows above the centre (and the centre row after the first layer, whose vertical
    features know only the rows above); ``horizontal`` keeps the centre row left of the
    centre (and the centre itself after the first layer). ``one_by_one``: the centre alone,
    which a type-A (first layer) mask would zero."""
    c = size // 2
    if kind == "one_by_one":
        return torch.tensor([[0.0 if first else 1.0]])
    mask = torch.zeros(size, size)
    if kind == "vertical":
        mask[:c + (0 if first else 1)] = 1
    else:
        mask[c, :c + (0 if first else 1)] = 1
    return mask


def pixel_nll(model, images):
    """Held-out negative log-likelihood of the binarised digits, nats per image."""
    with torch.no_grad():
        return F.binary_cross_entropy_with_logits(model(images), images,
                                                  reduction="sum").item() / len(images)


def seasonal_series(length=4000, seed=0):
    """A noisy sum of two seasonal cycles (periods 12 and 31) plus an AR(1) wander, scaled
    to unit spread: its next values follow from its recent past."""
    rng = np.random.default_rng(seed)
    t = np.arange(length)
    wander = np.zeros(length)
    for i in range(1, length):
        wander[i] = 0.95 * wander[i - 1] + 0.1 * rng.normal()
    series = (np.sin(2 * np.pi * t / 12) + 0.6 * np.sin(2 * np.pi * t / 31 + 1.0) + wander
              + 0.1 * rng.normal(size=length))
    return torch.from_numpy(((series - series.mean()) / series.std()).astype(np.float32))


class TCN(nn.Module):
    """A causal TCN: kernel-3 dilated convolutions (1, 2, 4, 8) padded on the left, ReLU,
    residuals, one output per time step: (B, T) -> (B, T)."""
    def __init__(self, channels=32, dilations=(1, 2, 4, 8)):
        super().__init__()
        self.inp = nn.Conv1d(1, channels, 1)
        self.convs = nn.ModuleList(nn.Conv1d(channels, channels, 3, dilation=d)
                                   for d in dilations)
        self.head = nn.Conv1d(channels, 1, 1)

    def forward(self, x):
        h = self.inp(x.unsqueeze(1))
        for conv in self.convs:
            h = h + torch.relu(conv(F.pad(h, (2 * conv.dilation[0], 0))))
        return self.head(h).squeeze(1)
