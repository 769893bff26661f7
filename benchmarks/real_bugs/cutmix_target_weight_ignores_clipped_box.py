"""CutMix whose label weight is the lambda the box was DRAWN with, not the share of the
image the clipped box really replaced. The box's side is sqrt(1 - lambda) times the
image's and its centre is uniform over the image, so a box near an edge is clipped and
pastes less than 1 - lambda of the partner; the target still gives the partner 1 - lambda.
On 8x8 digits most boxes are clipped, so the partner's label is over-weighted on average.

Reported: "True lambda" - https://github.com/clovaai/CutMix-PyTorch/issues/1 (the official
CutMix code draws lambda, cuts a box from it, clips the box to the image and weights the
targets with the drawn lambda; the reporter: "the true lambda (proportion of the image that
is mixed) is smaller than the previously defined lambda" and should be recomputed from the
clipped box, ``1 - box area / image area``; the authors agreed and fixed it). Here a small
CNN on the 8x8 digits, CutMix on every batch with lambda ~ Beta(1, 1), Adam. Fix: the
target weight from the clipped box's area.

On the 8x8 digits the box really pastes 0.23 of the image on average (edge clipping and
the box's rounding to whole pixels) while the drawn lambda gives the partner's label 0.50:
the bug's targets over-weight the partner's label by about two to one.

Measured (800 steps; on 500 held-out digits in eval mode: negative log-likelihood, the
mean probability of the predicted class, accuracy): seed 0: NLL 0.263 for the bug against
0.185 for the fixed twin (confidence 0.80 against 0.86; accuracy 0.980 for both); seeds
shifted by 1000: NLL 0.431 against 0.171 (confidence 0.68 against 0.87; accuracy 0.990
against 0.992). The harm is to the probabilities (the model learns to hedge), not to the
ranking.
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._reg169 import accuracy, split

TITLE = "True lambda"
LINK = "https://github.com/clovaai/CutMix-PyTorch/issues/1"
EXPECTED = ("MIX_WEIGHT_DISAGREES_WITH_MIXED_AREA",)
STEPS = 800
ALPHA = 1.0


def cnn():
    return nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(),
                         nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(32 * 16, 10))


def box(side, lam, rng):
    cut = int(side * np.sqrt(1.0 - lam))
    cy, cx = rng.integers(side), rng.integers(side)
    y0, y1 = np.clip(cy - cut // 2, 0, side), np.clip(cy + cut // 2, 0, side)
    x0, x1 = np.clip(cx - cut // 2, 0, side), np.clip(cx + cut // 2, 0, side)
    return y0, y1, x0, x1


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x, y, x_held, y_held = split(images=True)
    model = cnn()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(x), steps, 64):
            xb, yb = x[index].clone(), y[index]
            lam = rng.beta(ALPHA, ALPHA)
            partner = torch.randperm(len(xb))
            y0, y1, x0, x1 = box(8, lam, rng)
            xb[:, :, y0:y1, x0:x1] = xb[partner, :, y0:y1, x0:x1]
            if fixed:
                lam = 1.0 - (y1 - y0) * (x1 - x0) / 64.0     # the share really kept
            # BUG (fixed=False): the drawn lambda, though the box was clipped
            out = model(xb)
            loss = lam * nn.functional.cross_entropy(out, yb) + \
                (1 - lam) * nn.functional.cross_entropy(out, yb[partner])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, x_held, y_held)
    model.eval()
    with torch.no_grad():
        logits = model(x_held)
    mon.held_out_nll = round(nn.functional.cross_entropy(logits, y_held).item(), 3)
    mon.mean_confidence = round(logits.softmax(1).max(1).values.mean().item(), 3)
    return mon
