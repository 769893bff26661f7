"""Label smoothing written by hand for a multi-label (sigmoid + BCE) model, with the rate
left out of the uniform term: ``t * (1 - eps) + 1 / K`` instead of ``t * (1 - eps) + eps / K``.
With K = 2 labels and eps = 0.1 every absent label gets the target 0.5 and every present one
1.4. BCE towards 0.5 parks the absent labels' logits at 0, right on the 0.5 decision
threshold, so many of them come out "present"; BCE towards 1.4 has no minimum at all
(the loss keeps falling as the logit grows), so the present labels' logits run away. The
loss curve falls the whole run.

Reported: "KvsAll and AllvsAll label smoothing can produce targets above 1" -
https://github.com/dice-group/dice-embeddings/issues/433 ("With two entities and smoothing
0.1, labels should be [0.05, 0.95]. Instead, they are [0.5, 1.4]. The uniform term is
missing the smoothing multiplier."). Here the 8x8 digits with two labels per image (the
digit is even; the digit is 5 or more), an MLP (64 -> 64 -> 2) trained with
BCEWithLogitsLoss against the smoothed multi-hot rows, Adam 1e-3, batches of 64.
Fix: ``t * (1 - eps) + eps / K`` (targets 0.05 and 0.95).

Measured (held-out label accuracy, both labels thresholded at 0.5, 500 digits, after the
run): 0.538 with the bug, 0.914 fixed; seeds + 1000: 0.541 vs 0.921.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._reg169 import split

TITLE = "KvsAll and AllvsAll label smoothing can produce targets above 1"
LINK = "https://github.com/dice-group/dice-embeddings/issues/433"
EXPECTED = ("TARGETS_OUT_OF_RANGE",)
STEPS = 300
EPS = 0.1


def labels(digits):
    """Two labels per image: even digit, digit >= 5 (float multi-hot rows)."""
    return torch.stack([(digits % 2 == 0), (digits >= 5)], dim=1).float()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, xh, yh = split()
    t, th = labels(y), labels(yh)
    k = t.shape[1]
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, k))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    criterion = nn.BCEWithLogitsLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, tb in batches(x, t, steps):
            if fixed:
                smoothed = tb * (1 - EPS) + EPS / k
            else:
                smoothed = tb * (1 - EPS) + 1.0 / k        # BUG: the rate left out
            optimizer.zero_grad()
            loss = criterion(model(xb), smoothed)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        predicted = (torch.sigmoid(model(xh)) > 0.5).float()
    mon.held_out_accuracy = round(float((predicted == th).float().mean()), 3)
    return mon
