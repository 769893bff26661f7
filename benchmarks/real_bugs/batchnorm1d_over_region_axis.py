"""Region features (batch, regions, features) given to ``nn.BatchNorm1d`` sized by the
number of regions, so that it runs: BatchNorm1d takes axis 1 as its channels, so every
region slot gets one mean and variance pooled over the batch and over all of its
features, and each feature is no longer normalised at all (its scale across features is
what the layer flattens).

Reported: "Batch Normalization Error in Bottom Up Model" -
https://github.com/ruotianluo/self-critical.pytorch/issues/44 (att_feats of size
(batch_size, proposal_num, feature_num) fed to ``nn.BatchNorm1d(self.att_feat_size)``
raised "running_mean should contain 36 elements not 2048", so "I think the batch
normalization code should be: nn.BatchNorm1d(self.proposal_num) ... After changing the
code, the training process goes smoothly."; the author: "The parameter should be the
feature size instead of proposal num", the features flattened to (K, 2048) first). Here
each digit is 16 regions (its 2x2 patches) of 4 pixels scaled by different per-pixel
gains, as detector features are; an embedding of each region, the embeddings side by side,
classifies it.
Fix: BatchNorm1d over the features, on the regions flattened into the batch.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "Batch Normalization Error in Bottom Up Model"
LINK = "https://github.com/ruotianluo/self-critical.pytorch/issues/44"
EXPECTED = ("LAYOUT_NOT_TRANSPOSED",)
STEPS = 200
REGIONS, FEATURES = 16, 4


class RegionClassifier(nn.Module):
    def __init__(self, fixed, hidden=32):
        super().__init__()
        self.fixed = fixed
        # BUG (fixed=False): sized by the regions, the axis BatchNorm1d reads as channels
        self.norm = nn.BatchNorm1d(FEATURES if fixed else REGIONS)
        self.embed = nn.Sequential(nn.Linear(FEATURES, hidden), nn.ReLU())
        self.out = nn.Linear(REGIONS * hidden, 10)

    def forward(self, regions):                  # (batch, regions, features)
        if self.fixed:
            b, k, f = regions.shape
            x = self.norm(regions.reshape(b * k, f)).reshape(b, k, f)
        else:
            x = self.norm(regions)
        return self.out(self.embed(x).flatten(1))


def regions():
    """The digits cut into 16 patches of 2x2 pixels: (N, 16, 4), each of the 4 patch
    pixels scaled by its own gain (features of unequal scale)."""
    x, y = classification(images=True)
    patches = x.reshape(-1, 4, 2, 4, 2).permute(0, 1, 3, 2, 4).reshape(-1, REGIONS, FEATURES)
    return patches * torch.tensor([1.0, 10.0, 0.1, 3.0]) + torch.tensor([0.0, -5.0, 2.0, 1.0]), y


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = regions()
    model = RegionClassifier(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    return train_watched(model, optimizer, nn.CrossEntropyLoss(), batches(x, y, steps),
                         **watch)
