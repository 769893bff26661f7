"""A contrastive loss takes the square root of the squared distance between two embeddings
with nothing added under it. A pair of identical samples has distance exactly 0: the loss
stays finite (the pair is a positive pair, its sqrt term is multiplied by 0), but the
derivative of sqrt at 0 is infinite, 0 x inf is NaN, and that NaN reaches every weight at
the first such pair.

Reported: "Siamese loss problem" - https://github.com/adambielski/siamese-triplet/issues/18
("the derivatives suddenly equaled to nan in some iteration. It turns out that it is because
some of the distances equal to 0 ... and consequently the derivative sqrt(d) to d is nan";
the maintainer added an epsilon). Here an embedding of the digits trained on pairs drawn at
random within the batch, so that now and then a sample is paired with itself, as the
report's "two exactly the same samples". Fix: sqrt(distance + eps).
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "Siamese loss problem"
LINK = "https://github.com/adambielski/siamese-triplet/issues/18"
EXPECTED = ("NAN_BORN_IN_BACKWARD",)
STEPS = 150
MARGIN = 1.0
EPS = 1e-9


def embedding():
    return torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU(), torch.nn.Linear(64, 8))


def contrastive(first, second, same, fixed):
    distances = (second - first).pow(2).sum(1)
    root = (distances + EPS).sqrt() if fixed else distances.sqrt()   # BUG: sqrt at 0
    losses = same * distances + (1 - same) * F.relu(MARGIN - root).pow(2)
    return 0.5 * losses.mean()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = embedding()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    pairing = torch.Generator().manual_seed(1)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            partner = torch.randperm(len(xb), generator=pairing)  # may pair a sample with itself
            same = (yb == yb[partner]).float()
            optimizer.zero_grad()
            out = model(xb)
            loss = contrastive(out, out[partner], same, fixed)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
