"""The 8x8 handwritten digits (1797 images, 10 classes), shipped with minigrad.

A real data set small enough to train on in seconds with NumPy, for the
examples and the end-to-end tests:

    x, y = load_digits()                       # x: (1797, 64) floats in [0, 1]
    x_tr, x_te, y_tr, y_te = train_test_split(x, y, test_size=0.25, seed=0)
    for xb, yb in batches(x_tr, y_tr, batch_size=64, shuffle=True, seed=0): ...

Everything here is plain NumPy, so the same arrays feed minigrad and torch.
"""
import os

import numpy as np

_PATH = os.path.join(os.path.dirname(__file__), "digits.npz")


def load_digits(scale=True, as_images=False, dtype=np.float32):
    """Return ``(x, y)``: pixel values and integer labels 0..9 (int64).

    ``scale=True`` divides the 0..16 grey levels by 16, so x lies in [0, 1];
    ``as_images=True`` shapes x as (1797, 1, 8, 8) for convolutions. x is float32,
    the dtype of a new layer's weights (minigrad's and torch's): a layer refuses an
    input of another dtype, so pass ``dtype=np.float64`` for a model in float64.
    """
    with np.load(_PATH) as archive:
        images, labels = archive["images"], archive["labels"]
    x = images.astype(np.dtype(dtype))
    if scale:
        x /= 16
    if as_images:
        x = x.reshape(-1, 1, 8, 8)
    return x, labels.astype(np.int64)


def train_test_split(x, y, test_size=0.25, seed=0, stratify=True):
    """Split into ``x_train, x_test, y_train, y_test`` (scikit-learn's order).

    Uses its own generator seeded by ``seed``, so it never moves minigrad's or
    NumPy's global random state. ``stratify=True`` keeps each class's share the
    same in both parts.
    """
    x, y = np.asarray(x), np.asarray(y)
    if len(x) != len(y):
        raise ValueError(f"x and y must have the same length, got {len(x)} and {len(y)}")
    if not 0 < test_size < 1:
        raise ValueError(f"test_size must be a fraction between 0 and 1, got {test_size}")
    rng = np.random.default_rng(seed)
    if stratify:
        test = []
        for label in np.unique(y):
            members = rng.permutation(np.flatnonzero(y == label))
            test.extend(members[:int(round(len(members) * test_size))])
        test = np.sort(np.asarray(test, dtype=np.int64))
    else:
        order = rng.permutation(len(x))
        test = np.sort(order[:int(round(len(x) * test_size))])
    is_test = np.zeros(len(x), dtype=bool)
    is_test[test] = True
    train = np.flatnonzero(~is_test)
    return x[train], x[test], y[train], y[test]


def batches(x, y, batch_size=32, shuffle=True, seed=None, drop_last=False):
    """Yield ``(x_batch, y_batch)`` pairs covering the data once (one epoch).

    With ``shuffle`` the order comes from ``np.random.default_rng(seed)`` when a seed
    is given (repeatable, touches no global state), else from minigrad's generator
    (so ``mg.manual_seed`` controls it, as torch's DataLoader follows torch's seed).
    """
    x, y = np.asarray(x), np.asarray(y)
    if len(x) != len(y):
        raise ValueError(f"x and y must have the same length, got {len(x)} and {len(y)}")
    if batch_size < 1:
        raise ValueError(f"batch_size must be at least 1, got {batch_size}")
    if shuffle:
        if seed is None:
            from ..random import generator
            order = generator().permutation(len(x))
        else:
            order = np.random.default_rng(seed).permutation(len(x))
    else:
        order = np.arange(len(x))
    for start in range(0, len(x), batch_size):
        index = order[start:start + batch_size]
        if drop_last and len(index) < batch_size:
            break
        yield x[index], y[index]
