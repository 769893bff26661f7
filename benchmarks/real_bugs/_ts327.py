"""Shared pieces for batch 327: windows of seasonal series whose level and scale differ a lot
from series to series (what instance normalisation, RevIN-style, is for), and a small
transformer forecaster of the kind a first PatchTST / Informer tutorial writes by hand."""
import math

import numpy as np
import torch
from torch import nn

LOOKBACK, HORIZON, PATCH = 48, 12, 8


def windows(n, seed):
    """(x (n, LOOKBACK, 1), y (n, HORIZON, 1), scale (n,)): each window its own series, with a
    level in [-50, 50] and an amplitude between 0.5 and 20 (log-uniform)."""
    rng = np.random.default_rng(seed)
    t = np.arange(LOOKBACK + HORIZON)[None, :]
    level = rng.uniform(-50, 50, (n, 1))
    scale = np.exp(rng.uniform(math.log(0.5), math.log(20), (n, 1)))
    period = rng.uniform(10, 30, (n, 1))
    phase = rng.uniform(0, 2 * math.pi, (n, 2))
    shape = (np.sin(2 * math.pi * t / period + phase[:, :1])
             + 0.5 * np.sin(4 * math.pi * t / period + phase[:, 1:])
             + 0.1 * rng.standard_normal((n, t.shape[1])))
    series = (level + scale * shape).astype(np.float32)
    x = torch.from_numpy(series[:, :LOOKBACK, None])
    y = torch.from_numpy(series[:, LOOKBACK:, None])
    return x, y, torch.from_numpy(scale[:, 0].astype(np.float32))


def data(seed=0):
    """3000 training windows and 500 held-out ones (other series)."""
    x, y, _ = windows(3000, seed)
    xh, yh, scale_h = windows(500, seed + 1)
    return x, y, xh, yh, scale_h


def scaled_mse(prediction, target, scale):
    """Held-out MSE with each window's error measured in units of its own amplitude."""
    return (((prediction - target) / scale[:, None, None]) ** 2).mean().item()


class PatchEncoder(nn.Module):
    """Patches of PATCH steps (unfold over time), a linear patch embedding, learned
    positions, one transformer encoder layer and a flatten head to HORIZON values."""
    def __init__(self, dim=32):
        super().__init__()
        patches = LOOKBACK // PATCH
        self.embed = nn.Linear(PATCH, dim)
        self.position = nn.Parameter(0.02 * torch.randn(1, patches, dim))
        self.encoder = nn.TransformerEncoderLayer(dim, 4, 64, dropout=0.0, batch_first=True)
        self.head = nn.Linear(patches * dim, HORIZON)

    def forward(self, x):                       # x (B, LOOKBACK, 1), already normalised
        patches = x[..., 0].unfold(1, PATCH, PATCH)          # (B, patches, PATCH)
        h = self.encoder(self.embed(patches) + self.position)
        return self.head(h.flatten(1))[..., None]            # (B, HORIZON, 1)
