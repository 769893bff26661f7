"""Pieces batch 111's self-supervised cases share: a small digits encoder, a random two-view
augmentation of 8x8 digits, the NT-Xent and MoCo InfoNCE losses, and the probe that scores
what an encoder learned (each case keeps its own bug in its own file)."""
import torch
from torch.nn import functional as F

PROBE_SPLIT = 900        # digits 0..899 fit the probe, the rest (897) score it


def encoder(hidden=128, features=32):
    return torch.nn.Sequential(torch.nn.Linear(64, hidden), torch.nn.ReLU(),
                               torch.nn.Linear(hidden, features))


def view(x, generator=None):
    """One random view of each 8x8 digit: moved by up to a pixel each way (its own shift
    per image, the border zero-padded), a random pixel mask (20% off) and pixel noise."""
    images = F.pad(x.reshape(-1, 8, 8), (1, 1, 1, 1))
    n = len(images)
    oy, ox = torch.randint(0, 3, (2, n, 1), generator=generator)
    span = torch.arange(8)
    moved = images[torch.arange(n)[:, None, None], (oy + span)[:, :, None],
                   (ox + span)[:, None, :]]
    keep = (torch.rand(moved.shape, generator=generator) > 0.2).float()
    noise = 0.1 * torch.randn(moved.shape, generator=generator)
    return (moved * keep + noise).reshape(n, 64)


def nt_xent(z1, z2, temperature=0.2):
    """SimCLR's loss: rows i and i + n of the 2n normalised embeddings are one image."""
    z = F.normalize(torch.cat([z1, z2]), dim=1)
    n = len(z1)
    logits = (z @ z.T / temperature).masked_fill(torch.eye(2 * n, dtype=torch.bool),
                                                 float("-inf"))
    return F.cross_entropy(logits, (torch.arange(2 * n) + n) % (2 * n))


def info_nce(q, k, queue, temperature=0.2):
    """MoCo's loss: each query against its key (positive) and the queue's keys."""
    q, k = F.normalize(q, dim=1), F.normalize(k, dim=1)
    logits = torch.cat([(q * k).sum(1, keepdim=True), q @ queue.T], dim=1) / temperature
    return F.cross_entropy(logits, torch.zeros(len(q), dtype=torch.long))


@torch.no_grad()
def probe_accuracy(features, x, y, shifted=True):
    """Nearest-centroid probe on normalised features: centroids from the clean first
    PROBE_SPLIT digits, accuracy on the rest, read as views (shifted, masked, noisy: what
    the augmentation was meant to make the features indifferent to) from a fixed seed."""
    f = F.normalize(features(x[:PROBE_SPLIT]), dim=1)
    yf, yt = y[:PROBE_SPLIT], y[PROBE_SPLIT:]
    test = x[PROBE_SPLIT:]
    if shifted:
        test = view(test, torch.Generator().manual_seed(1))
    t = F.normalize(features(test), dim=1)
    centroids = F.normalize(torch.stack([f[yf == c].mean(0) for c in range(10)]), dim=1)
    return round(float(((t @ centroids.T).argmax(1) == yt).float().mean()), 3)
