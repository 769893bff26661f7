"""Per-pixel class scores flattened with ``view(-1, C)`` straight from (N, C, H, W): each
row of the flattened tensor holds C neighbouring pixels of ONE class map, not the C class
scores of one pixel, so the softmax (and the loss) compares the wrong numbers with each
other; the network still lowers the loss, to a worse level.

Reported: "pixl-wise distillation loss" -
https://github.com/irfanICMLL/structure_knowledge_distillation/issues/11 (``N,C,W,H =
preds_T[0].shape; softmax_pred_T = F.softmax(preds_T[0].view(-1,C), dim=1)`` - "Should it
be ... permute(0,2,3,1).view(-1,C)?"; the authors: "Thank you for pointing out the
mistakes ... We will fix this bug and report new results"). Here a small fully
convolutional net labels each pixel of the 8x8 digits as background, faint or dark ink
(3 classes) with a per-pixel cross-entropy on the flattened scores. Fix: move the class
axis last before flattening, ``permute(0, 2, 3, 1).reshape(-1, C)``.
"""
import torch
from torch import nn
from torch.nn import functional as F

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "pixl-wise distillation loss"
LINK = "https://github.com/irfanICMLL/structure_knowledge_distillation/issues/11"
EXPECTED = ("CLASS_AXIS_SCRAMBLED",)
STEPS = 150
CLASSES = 3


def segmenter():
    return nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(),
                         nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, CLASSES, 1))


def pixel_labels(x, steps):
    """(image, per-pixel class) batches: 0 background, 1 faint ink, 2 dark ink."""
    for images, _ in batches(x, torch.zeros(len(x)), steps):
        labels = (images[:, 0] > 0.2).long() + (images[:, 0] > 0.6).long()
        yield images, labels


def pixel_loss(permuted):
    def loss(scores, labels):
        if permuted:
            flat = scores.permute(0, 2, 3, 1).reshape(-1, CLASSES)
        else:
            flat = scores.view(-1, CLASSES)      # BUG: the class axis is not last
        return F.cross_entropy(flat, labels.reshape(-1))
    return loss


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, _ = classification(images=True)
    model = segmenter()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    return train_watched(model, optimizer, pixel_loss(permuted=fixed),
                         pixel_labels(x, steps), **watch)
