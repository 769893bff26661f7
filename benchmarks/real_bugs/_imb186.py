"""Imbalanced digits the batch-186 cases share (class-imbalanced classification).

``rare_binary``: one digit against the nine others, the positive digit kept to a few
training rows; ``long_tail``: the ten digits with classes 5-9 cut to a few training rows
each. Both hold out a stratified test set with every class at its natural share, and the
metrics read it at the decision the model makes (argmax, or a 0.5 threshold)."""
import numpy as np
import torch

from benchmarks.real_bugs._common import classification

POSITIVE_DIGIT = 8          # the hardest digit to tell apart on 8x8 pixels (3, 9, 1 look alike)
HELD_OUT_SHARE = 0.3


def _split(y, rng):
    """Row indices (train, held_out): HELD_OUT_SHARE of every digit held out."""
    train, held = [], []
    for c in range(10):
        rows = rng.permutation(np.flatnonzero(y == c))
        cut = int(len(rows) * HELD_OUT_SHARE)
        held.append(rows[:cut])
        train.append(rows[cut:])
    return np.concatenate(train), np.concatenate(held)


def rare_binary(positives=12, seed=0):
    """(x_train, y_train, x_test, y_test): y float in {0, 1}, 1 = POSITIVE_DIGIT; the
    training set keeps ``positives`` positive rows (about 1 in 100), the test set all its."""
    x, y = classification()
    rng = np.random.default_rng(seed)
    train, held = _split(y.numpy(), rng)
    is_pos = y.numpy()[train] == POSITIVE_DIGIT
    train = np.concatenate([train[~is_pos], train[is_pos][:positives]])
    train = rng.permutation(train)
    target = (y == POSITIVE_DIGIT).float()
    return x[train], target[train], x[held], target[held]


def long_tail(rare=4, seed=0):
    """(x_train, y_train, x_test, y_test): int64 digits; classes 5-9 keep ``rare`` training
    rows each (0-4 all theirs, about 125), the test set every class's natural share."""
    x, y = classification()
    rng = np.random.default_rng(seed)
    train, held = _split(y.numpy(), rng)
    keep = [train[y.numpy()[train] == c][:(rare if c >= 5 else None)] for c in range(10)]
    train = rng.permutation(np.concatenate(keep))
    return x[train], y[train], x[held], y[held]


def inverse_frequency(y, classes):
    """weight[c] = N / (classes * n_c): 1 for every class when balanced."""
    counts = torch.bincount(y, minlength=classes).float()
    return len(y) / (classes * counts)


@torch.no_grad()
def binary_scores(model, x, y):
    """(recall of the positives, F1 of the positives, balanced accuracy) at p > 0.5."""
    pred = (model(x).squeeze(-1) > 0).float()
    tp = float(((pred == 1) & (y == 1)).sum())
    fp = float(((pred == 1) & (y == 0)).sum())
    fn = float(((pred == 0) & (y == 1)).sum())
    tn = float(((pred == 0) & (y == 0)).sum())
    recall = tp / max(tp + fn, 1)
    f1 = 2 * tp / max(2 * tp + fp + fn, 1)
    return recall, f1, 0.5 * (recall + tn / max(tn + fp, 1))


@torch.no_grad()
def two_class_scores(model, x, y):
    """binary_scores for a model with two logits (class 1 = positive), by argmax."""
    logits = model(x)
    margin = logits[:, 1] - logits[:, 0]
    return binary_scores(lambda inputs: margin.unsqueeze(-1), x, y)


@torch.no_grad()
def balanced_accuracy(model, x, y, classes=10, among=None):
    """Mean recall over ``among`` (default every class) by argmax."""
    pred = model(x).argmax(1)
    chosen = range(classes) if among is None else among
    return float(np.mean([float((pred[y == c] == c).float().mean()) for c in chosen]))
