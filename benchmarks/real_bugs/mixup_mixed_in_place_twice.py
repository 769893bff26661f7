"""Mixup written as one chain of in-place operations, ``x.mul_(lam).add_(x.flip(0), alpha=1
- lam)``: by the time ``x.flip(0)`` is read, ``x`` has already been multiplied by ``lam``,
so the partner image enters the mix at lam (1 - lam) instead of (1 - lam) while its label
still gets the full 1 - lam. Every mixed image is darker than either original and carries
less of its partner than its target says; nothing fails.

Reported: "bug in mixup implementation" -
https://github.com/huggingface/pytorch-image-models/issues/50 ("`input.mul_(lam).add_(1 -
lam, input.flip(0))` i put lam=0 and got a black picture ... the order of operations is
wrong, and you actually double input.flip(0) by lam*(1-lam)"; the maintainer: "woops, one
inplace op too many"). Here digits mixed with lam ~ Beta(1, 1) per batch, soft targets to
cross-entropy. Fix: compute the flipped batch before scaling (or out of place).

Measured: the training loss settles at 1.49 against 1.12 for the fixed twin; on the clean
digits the trained net scores 0.926 (0.935 fixed), a small loss of accuracy.

Why watch misses it: the targets are proper mixup rows (each sums to 1), the inputs stay
in range and only get darker, and the loss curve falls as a mixup run's does (higher than
without mixup, by design). Telling the mix the image got from the mix its label got would
take a check that undoes the mixing on a kept batch.
"""
import numpy as np
import torch
from torch.nn import functional as F

from benchmarks.real_bugs._common import batches, classification, mlp, train_watched

TITLE = "bug in mixup implementation"
LINK = "https://github.com/huggingface/pytorch-image-models/issues/50"
EXPECTED = ("LABELS_MISALIGNED",)
STEPS = 200
ALPHA = 1.0


def mixed_batches(x, y, steps, fixed, seed=0):
    """(mixed images, mixed one-hot targets) batches, lam drawn per batch."""
    rng = np.random.default_rng(seed)
    for xb, yb in batches(x, y, steps):
        lam = float(rng.beta(ALPHA, ALPHA))
        target = F.one_hot(yb, 10).float()
        target = lam * target + (1 - lam) * target.flip(0)
        images = xb.clone()
        if fixed:
            partner = images.flip(0)
            images = images.mul_(lam).add_(partner, alpha=1 - lam)
        else:
            images.mul_(lam).add_(images.flip(0), alpha=1 - lam)   # BUG: flips the scaled x
        yield images, target


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    return train_watched(model, optimizer, F.cross_entropy,
                         mixed_batches(x, y, steps, fixed), **watch)
