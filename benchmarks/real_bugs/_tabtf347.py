"""Data and pieces the batch-347 cases share (tabular transformers: TabTransformer's
inputs, TabNet's attentive transformers and sparsemax masks).

mixed_rows       rows of standard-normal numeric columns and a few categorical columns,
                 with a binary label that depends on both (smooth non-linear numeric terms,
                 one interaction, an effect per category)
Block            one pre-norm transformer block (attention + feed-forward), batch first
binary_accuracy  accuracy of a one-logit model on held-out rows
Sparsemax        sparsemax over dim 1 with a hand-written backward (per-sample support size,
                 or - TabNet case's bug - the whole batch's)
FeatureTransformer  TabNet's two GLU layers (Linear, BatchNorm, GLU) with a scaled residual
"""
import numpy as np
import torch
from torch import nn
from torch.nn import functional as F


def mixed_rows(rng, rows, numbers=6, levels=(6, 8, 5), effect=1.0, noise=0.3,
               threshold=None):
    """(x, codes, y): x float32 (rows, numbers), codes int64 (rows, len(levels)), y float32
    in {0, 1} cut at the median of a logit made of sin / square terms of the numbers, one
    product of two numbers and each category's own effect."""
    x = rng.normal(size=(rows, numbers))
    codes = np.stack([rng.integers(0, n, rows) for n in levels], 1)
    logit = _logit(x, codes, levels, effect, noise, rng)
    cut = np.median(logit) if threshold is None else threshold
    y = (logit > cut).astype(np.float32)
    return (torch.from_numpy(x.astype(np.float32)), torch.from_numpy(codes).long(),
            torch.from_numpy(y))


def split_rows(seed=0, train=2000, held=1000, **kw):
    """Train and held-out rows drawn from one generator (the same label function)."""
    rng = np.random.default_rng(seed)
    return mixed_rows(rng, train, **kw), mixed_rows(rng, held, **kw)


def _logit(x, codes, levels, effect, noise, rng):
    tables = [np.random.default_rng(7 + i).normal(scale=effect, size=n)
              for i, n in enumerate(levels)]
    logit = (np.sin(2.0 * x[:, 0]) + 0.8 * x[:, 1] - 0.6 * x[:, 2] ** 2 + x[:, 3] * x[:, 4]
             + 0.5 * np.abs(x[:, 5]))
    logit = logit + sum(table[codes[:, i]] for i, table in enumerate(tables))
    return logit + noise * rng.normal(size=len(x))


class Block(nn.Module):
    def __init__(self, dim, heads=4, hidden=2):
        super().__init__()
        self.norm1, self.norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.ff = nn.Sequential(nn.Linear(dim, hidden * dim), nn.ReLU(),
                                nn.Linear(hidden * dim, dim))

    def forward(self, h):
        a = self.norm1(h)
        h = h + self.attn(a, a, a, need_weights=False)[0]
        return h + self.ff(self.norm2(h))


def binary_accuracy(model, *inputs_and_target):
    *inputs, y = inputs_and_target
    was = model.training
    model.eval()
    with torch.no_grad():
        logit = model(*inputs).squeeze(-1)
    model.train(was)
    return ((logit > 0).float() == y).float().mean().item()


class Sparsemax(torch.autograd.Function):
    """Sparsemax over dim 1 of (batch, features), with the backward written by hand."""

    @staticmethod
    def forward(ctx, z, per_sample):
        z = z - z.max(1, keepdim=True).values
        ordered = z.sort(1, descending=True).values
        ranks = torch.arange(1, z.shape[1] + 1, dtype=z.dtype)
        cumulative = ordered.cumsum(1)
        in_support = 1 + ranks * ordered > cumulative
        k = in_support.sum(1, keepdim=True)
        tau = (cumulative.gather(1, k - 1) - 1) / k
        out = (z - tau).clamp(min=0)
        ctx.save_for_backward(out)
        ctx.per_sample = per_sample
        return out

    @staticmethod
    def backward(ctx, grad):
        out, = ctx.saved_tensors
        support = (out > 0).to(grad.dtype)
        if ctx.per_sample:
            size = support.sum(1, keepdim=True)
        else:
            size = support.sum()                 # BUG: the whole batch's support count
        mean = (grad * support).sum(1, keepdim=True) / size
        return support * (grad - mean), None


class GLUBlock(nn.Module):
    def __init__(self, inputs, outputs):
        super().__init__()
        self.fc = nn.Linear(inputs, 2 * outputs, bias=False)
        self.bn = nn.BatchNorm1d(2 * outputs)

    def forward(self, x):
        return F.glu(self.bn(self.fc(x)), dim=-1)


class FeatureTransformer(nn.Module):
    def __init__(self, inputs, outputs):
        super().__init__()
        self.first, self.second = GLUBlock(inputs, outputs), GLUBlock(outputs, outputs)

    def forward(self, x):
        h = self.first(x)
        return (h + self.second(h)) * 0.5 ** 0.5
