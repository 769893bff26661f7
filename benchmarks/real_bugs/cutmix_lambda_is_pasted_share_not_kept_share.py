"""CutMix whose per-image ``lambda`` is the share of the image the pasted box COVERS, used
in a loss that - as in the CutMix paper - gives ``lambda`` to the image's own label and
``1 - lambda`` to the partner's. The two conventions disagree, so every target is
reversed: an image that keeps 80% of itself and shows a 20% patch of its partner is
trained to be 20% its own class and 80% the partner's. Nothing errors; the loss still
falls (the network learns to read the patch as the label and the rest as the other class)
and every weight in it is a valid probability.

Reported: "lam is computed incorrectly in RandomCutMixV2" -
https://github.com/kornia/kornia/issues/3077 (kornia's ``RandomCutMixV2`` returned
``lam = w * h / (W * H)``, the box's area share, next to the labels; the reporter: with
the loss computed as in the paper, lambda multiplying the loss of the first label, it
should be ``1 - w * h / (W * H)``; the maintainers kept the old value for backward
compatibility behind a deprecation warning and added ``use_correct_lambda=True``, which
returns ``1 - area``). Here a small CNN on the 8x8 digits, kornia-style CutMix on every
image (its own box: side ``sqrt(u)`` of the image's, u ~ Beta(1, 1), centre uniform,
clipped), the paper's loss ``lam * CE(y) + (1 - lam) * CE(y[perm])``, Adam. Fix: ``lam =
1 - box area / image area`` (``use_correct_lambda=True``).

Measured (600 steps, batch 64; 500 held-out digits, eval mode): seed 0, held-out negative
log-likelihood 0.954 for the bug against 0.204 for the fixed twin (mean confidence in the
predicted class 0.40 against 0.85; accuracy 0.972 against 0.978); seeds shifted by 1000,
NLL 1.039 against 0.211 (confidence 0.37 against 0.84; accuracy 0.986 against 0.978). The
harm is to the probabilities: the reversed targets teach the network to hedge on every
clean digit, while its top class stays right.
"""
import numpy as np
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._aug import accuracy, cnn, confidence, nll, split
from benchmarks.real_bugs._common import index_batches

TITLE = "lam is computed incorrectly in RandomCutMixV2"
LINK = "https://github.com/kornia/kornia/issues/3077"
EXPECTED = ("MIX_WEIGHT_DISAGREES_WITH_MIXED_AREA",)
STEPS = 600
SIDE = 8


def cut_boxes(n, rng):
    """One clipped box per image, kornia's way: (n, 8, 8) bool masks of the pasted pixels
    and each box's share of the image."""
    lam = rng.beta(1.0, 1.0, n)
    cut = np.floor(SIDE * np.sqrt(lam)).astype(int)
    cy, cx = rng.integers(0, SIDE, n), rng.integers(0, SIDE, n)
    y0, y1 = np.clip(cy - cut // 2, 0, None), np.clip(cy + cut // 2, None, SIDE)
    x0, x1 = np.clip(cx - cut // 2, 0, None), np.clip(cx + cut // 2, None, SIDE)
    rows = torch.arange(SIDE)
    ys = (rows[None] >= torch.from_numpy(y0)[:, None]) & (rows[None] < torch.from_numpy(y1)[:, None])
    xs = (rows[None] >= torch.from_numpy(x0)[:, None]) & (rows[None] < torch.from_numpy(x1)[:, None])
    mask = ys[:, :, None] & xs[:, None, :]
    share = torch.from_numpy((y1 - y0) * (x1 - x0) / (SIDE * SIDE)).float()
    return mask, share


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x, y, x_held, y_held = split()
    model = cnn()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(x), steps, 64):
            xb, yb = x[index], y[index]
            partner = torch.randperm(len(xb))
            mask, share = cut_boxes(len(xb), rng)
            mixed = torch.where(mask[:, None], xb[partner], xb)
            if fixed:
                lam = 1.0 - share          # the share of the image that is still its own
            else:
                lam = share                # BUG: the pasted box's share, weighting y
            out = model(mixed)
            loss = (lam * F.cross_entropy(out, yb, reduction="none")
                    + (1 - lam) * F.cross_entropy(out, yb[partner], reduction="none")).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, x_held, y_held)
    mon.held_out_nll = nll(model, x_held, y_held)
    mon.mean_confidence = confidence(model, x_held)
    return mon
