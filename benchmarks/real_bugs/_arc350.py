"""Pieces the angular-margin (ArcFace) cases of real-bug batch 350 share: the 8x8 digits as
ten "identities", split into training rows and 500 held-out rows, a small embedding network,
and the held-out accuracy of the nearest class centre by cosine (how a face model trained
with an angular-margin head is read: the margin is for training only)."""
import torch
from torch import nn
from torch.nn import functional as F

from benchmarks.real_bugs._common import classification

HELD_OUT = 500


def digit_identities():
    """(x_train, y_train, x_held_out, y_held_out): the digits, the last 500 held out."""
    x, y = classification()
    return x[:-HELD_OUT], y[:-HELD_OUT], x[-HELD_OUT:], y[-HELD_OUT:]


def embedder(dim):
    return nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, dim))


def nearest_centre_accuracy(body, centres, x, y):
    """Share of rows whose embedding is closest in angle to its own class's weight row."""
    with torch.no_grad():
        cosine = F.linear(F.normalize(body(x)), F.normalize(centres))
        return (cosine.argmax(1) == y).float().mean().item()
