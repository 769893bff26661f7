"""Pieces batch 196's adversarial-training cases share: the digits split, a small MLP, and a
correct L-infinity PGD with which every case scores its held-out robustness (each case
writes its own training attack, where its bug lives)."""
import torch
from torch import nn

from benchmarks.real_bugs._common import classification

TRAIN = 1400            # of the 1,797 digits; the other 397 are held out


def split():
    """(x_train, y_train), (x_test, y_test): pixels in [0, 1], (N, 64), a fixed split."""
    x, y = classification()
    order = torch.randperm(len(y), generator=torch.Generator().manual_seed(0))
    x, y = x[order], y[order]
    return (x[:TRAIN], y[:TRAIN]), (x[TRAIN:], y[TRAIN:])


def mlp(hidden=128):
    return nn.Sequential(nn.Linear(64, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                         nn.Linear(hidden, 10))


def pgd_reference(model, x, y, eps, steps=20, alpha=None):
    """A correct L-infinity PGD on [0, 1] pixels: random start, signed steps, projection onto
    the eps-ball around the clean ``x`` and onto [0, 1] after every step. The weights' .grad
    is left alone (torch.autograd.grad)."""
    alpha = 2.5 * eps / steps if alpha is None else alpha
    delta = (torch.rand_like(x) * 2 - 1) * eps
    delta = ((x + delta).clamp(0, 1) - x).detach()
    for _ in range(steps):
        delta.requires_grad_(True)
        loss = nn.functional.cross_entropy(model(x + delta), y)
        grad, = torch.autograd.grad(loss, delta)
        delta = (delta + alpha * grad.sign()).clamp(-eps, eps)
        delta = ((x + delta).clamp(0, 1) - x).detach()
    return x + delta


def accuracy(model, x, y):
    with torch.no_grad():
        return round(float((model(x).argmax(1) == y).float().mean()), 3)


def held_out(model, x, y, eps):
    """{"clean": accuracy on the clean held-out digits, "pgd": under ``pgd_reference``}."""
    model.eval()
    clean = accuracy(model, x, y)
    robust = accuracy(model, pgd_reference(model, x, y, eps), y)
    model.train()
    return {"clean": clean, "pgd": robust}
