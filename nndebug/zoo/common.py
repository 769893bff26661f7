"""What the zoo's cases share: the digits data and a batch stream, for both frameworks.

Kept tiny on purpose so each case file shows its whole training loop, bug included.
"""
import numpy as np

N_FEATURES, N_CLASSES = 64, 10


def digits(images=False, scale=True, val=False):
    """The 8x8 digits as NumPy: x float32 (pixels in [0, 1] when ``scale``), y int64.

    ``val=True`` returns ``(x_train, y_train, x_val, y_val)`` (a fixed 75/25 split).
    """
    from minigrad.data import load_digits, train_test_split
    x, y = load_digits(scale=scale, as_images=images, dtype=np.float32)
    if not val:
        return x, y
    x_train, x_val, y_train, y_val = train_test_split(x, y, test_size=0.25, seed=0)
    return x_train, y_train, x_val, y_val


def to_framework(framework, *arrays):
    """The arrays as torch or minigrad tensors (floats stay float32, labels int64)."""
    if framework == "torch":
        import torch
        out = [torch.from_numpy(np.ascontiguousarray(a)) for a in arrays]
    else:
        import minigrad as mg
        out = [mg.tensor(a) for a in arrays]
    return out[0] if len(out) == 1 else out


def batches(x, y, steps, batch_size=64, seed=0, framework="torch", shuffle=True):
    """``steps`` mini-batches ``(xb, yb)`` as framework tensors, reshuffling every epoch.

    The order comes from its own NumPy generator, so no global RNG is touched.
    """
    rng = np.random.default_rng(seed)
    n, done = len(x), 0
    while done < steps:
        order = rng.permutation(n) if shuffle else np.arange(n)
        for start in range(0, n - batch_size + 1, batch_size):
            index = order[start:start + batch_size]
            yield to_framework(framework, x[index], y[index])
            done += 1
            if done == steps:
                return
