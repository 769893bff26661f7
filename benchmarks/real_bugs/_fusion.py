"""Data and models the batch-234 cases share (multimodal fusion: an image plus tabular
metadata per sample).

fusion_data   the 8x8 digits with pixel noise (the image modality) and a few metadata
              columns in raw units whose class means differ (the tabular modality); each
              modality alone names the class only partly, both together do better.
              Drawn with torch's global generator (seed it first).
FusionNet     an image branch and a metadata branch, their features concatenated and
              read by a linear head.
accuracy      held-out accuracy of a callable ``predict(img, meta) -> logits``.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import classification

META_SCALES = torch.tensor([1.0, 10.0, 100.0, 0.1, 50.0, 5.0])   # raw units of the columns
META_OFFSETS = torch.tensor([0.0, 40.0, 500.0, 1.0, 200.0, 20.0])


def fusion_data(noise=0.7, meta_noise=1.2, test=600):
    """(train, test), each (img (N, 64), meta (N, 6), y (N,)): shuffled digits."""
    x, y = classification()
    order = torch.randperm(len(x))
    x, y = x[order], y[order]
    img = (x + noise * torch.randn_like(x)).clamp(-1, 2)
    centres = torch.randn(10, len(META_SCALES))               # class means, in std units
    meta = centres[y] + meta_noise * torch.randn(len(y), len(META_SCALES))
    meta = META_OFFSETS + META_SCALES * meta                  # raw units, as in a table
    return (img[test:], meta[test:], y[test:]), (img[:test], meta[:test], y[:test])


def standardiser(train_meta):
    """The column means and stds of the training metadata (a scaler fitted on train)."""
    return train_meta.mean(0), train_meta.std(0)


class FusionNet(nn.Module):
    """Late feature fusion: image MLP branch, metadata MLP branch, linear head on both."""

    def __init__(self, img_dim=64, meta_dim=6, hidden=64, meta_hidden=32, classes=10):
        super().__init__()
        self.image = nn.Sequential(nn.Linear(img_dim, hidden), nn.ReLU())
        self.meta = nn.Sequential(nn.Linear(meta_dim, meta_hidden), nn.ReLU())
        self.head = nn.Linear(hidden + meta_hidden, classes)

    def forward(self, img, meta):
        return self.head(torch.cat([self.image(img), self.meta(meta)], dim=1))


@torch.no_grad()
def accuracy(predict, img, meta, y):
    return (predict(img, meta).argmax(1) == y).float().mean().item()
