"""Pieces batch 180's semi-supervised cases share: the digits split into a few labelled
rows, a pool of unlabelled rows and a held-out set (the split drawn from torch's global
generator, so shifted seeds draw another), a weak and a strong view of a digit, the
classifier, and its held-out accuracy. Each case keeps its own loss and its bug in its
own file."""
import torch
import torch.nn.functional as F
from torch import nn

from benchmarks.real_bugs._common import classification

LABELLED = 20           # 2 per class
UNLABELLED = 1200
HELD_OUT = 500


def split(labelled=LABELLED):
    """(x_lb, y_lb, x_ulb, y_ulb, x_test, y_test): ``labelled // 10`` labelled digits of
    each class, the unlabelled pool (its labels only for measuring pseudo-labels), the
    held-out rows."""
    x, y = classification()
    order = torch.randperm(len(x))
    x, y = x[order], y[order]
    x_test, y_test = x[-HELD_OUT:], y[-HELD_OUT:]
    rest_x, rest_y = x[:-HELD_OUT], y[:-HELD_OUT]
    per_class = labelled // 10
    chosen = torch.cat([torch.nonzero(rest_y == c).flatten()[:per_class] for c in range(10)])
    others = torch.ones(len(rest_x), dtype=torch.bool)
    others[chosen] = False
    x_ulb, y_ulb = rest_x[others][:UNLABELLED], rest_y[others][:UNLABELLED]
    return rest_x[chosen], rest_y[chosen], x_ulb, y_ulb, x_test, y_test


def _shift(x, most):
    """Each 8x8 digit moved by up to ``most`` pixels each way (zero-padded border)."""
    images = F.pad(x.reshape(-1, 8, 8), (most, most, most, most))
    n = len(images)
    oy, ox = torch.randint(0, 2 * most + 1, (2, n, 1))
    span = torch.arange(8)
    moved = images[torch.arange(n)[:, None, None], (oy + span)[:, :, None],
                   (ox + span)[:, None, :]]
    return moved.reshape(n, 64)


def weak(x):
    """A weak view: moved by up to a pixel, a little pixel noise."""
    return _shift(x, 1) + 0.05 * torch.randn_like(x)


def strong(x):
    """A strong view: moved by up to a pixel, 30% of the pixels dropped, more noise."""
    moved = _shift(x, 1)
    keep = (torch.rand_like(moved) > 0.3).float()
    return moved * keep + 0.2 * torch.randn_like(moved)


def classifier(hidden=128):
    return nn.Sequential(nn.Linear(64, hidden), nn.ReLU(), nn.Linear(hidden, hidden),
                         nn.ReLU(), nn.Linear(hidden, 10))


@torch.no_grad()
def accuracy(model, x, y):
    was = model.training
    model.eval()
    right = (model(x).argmax(1) == y).float().mean().item()
    model.train(was)
    return round(right, 3)
