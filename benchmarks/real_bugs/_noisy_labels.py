"""Shared pieces of the noisy-label and weak-supervision cases (batch 135): the 8x8 digits
split into a training part whose labels get corrupted and a clean held-out part, symmetric
and pair label noise, bags of digits for multiple-instance learning, and held-out accuracy."""
import numpy as np
import torch

from benchmarks.real_bugs._common import classification

HELD_OUT = 497          # of the 1,797 digits: 1,300 train, 497 held out (clean labels)


def digits_split(seed=0):
    """(x_train, y_train, x_held, y_held) with clean labels, split by a private generator."""
    x, y = classification()
    order = torch.from_numpy(np.random.default_rng(seed).permutation(len(x)))
    held, train = order[:HELD_OUT], order[HELD_OUT:]
    return x[train], y[train], x[held], y[held]


def symmetric_noise(y, rate, classes=10, seed=0):
    """A copy of ``y`` where a ``rate`` share of the labels, drawn at random, are replaced by
    a different class drawn uniformly (the usual symmetric noise of the label-noise papers).
    Returns the noisy labels and the mask of corrupted rows."""
    rng = np.random.default_rng(seed)
    noisy = y.clone()
    flip = torch.from_numpy(rng.random(len(y)) < rate)
    shift = torch.from_numpy(rng.integers(1, classes, len(y)))
    noisy[flip] = (y[flip] + shift[flip]) % classes
    return noisy, flip


def accuracy(model, x, y):
    with torch.no_grad():
        return (model(x).argmax(dim=1) == y).float().mean().item()


def digit_bags(x, y, bags, size=(6, 12), seed=0, positive_share=0.5, target=None):
    """``bags`` bags of digit images (a list of (n_i, 64) tensors) and, per bag, the digits
    it holds (a list of int64 tensors). About ``positive_share`` of the bags are drawn to
    contain ``target`` at least once, the rest to contain none (when ``target`` is set)."""
    rng = np.random.default_rng(seed)
    has = {d: np.flatnonzero(y.numpy() == d) for d in range(10)}
    without = np.flatnonzero(y.numpy() != target) if target is not None else np.arange(len(y))
    out_x, out_digits = [], []
    for _ in range(bags):
        n = int(rng.integers(size[0], size[1] + 1))
        rows = rng.choice(without, n)
        if target is not None and rng.random() < positive_share:
            k = int(rng.integers(1, 3))
            rows[rng.choice(n, k, replace=False)] = rng.choice(has[target], k)
        index = torch.from_numpy(rows)
        out_x.append(x[index])
        out_digits.append(y[index])
    return out_x, out_digits


def pair_noise(y, rate, classes=10, seed=0):
    """A copy of ``y`` where a ``rate`` share of the labels, drawn at random, are flipped to
    the next class (c -> c + 1 mod classes: the "pair" or asymmetric noise of the label-noise
    papers). Returns the noisy labels and the mask of corrupted rows."""
    rng = np.random.default_rng(seed)
    noisy = y.clone()
    flip = torch.from_numpy(rng.random(len(y)) < rate)
    noisy[flip] = (y[flip] + 1) % classes
    return noisy, flip
