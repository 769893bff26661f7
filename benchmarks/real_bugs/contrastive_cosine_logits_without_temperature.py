"""An in-batch contrastive loss (each row's other view is its class among the batch's rows)
fed the raw cosine similarities as logits, with no temperature: every logit lies in
[-1, 1], so the softmax over 64 candidates can give the right one at most
e / (e + 63 / e) = 10% of the probability, the loss cannot go below ln(1 + 63 / e^2) = 2.2
nats (chance: ln 64 = 4.2), and the gradient that pulls the true pair together stays weak
and spread over all the negatives. The loss falls a little and then flattens; the features
separate the digits much worse.

Reported: "Add temperature parameter to contrastive losses" -
https://github.com/lightonai/pylate/pull/115 (the author: "I initially removed it when
copying the losses from ST because it is named 'scale' ... It turns out, for contrastive
training, we require a very low temperature if we want to get the best performance
possible"; sentence-transformers multiplies the cosines by ``scale=20``, i.e. divides by a
temperature of 0.05). Here a digits MLP encoder trained on two noisy, shifted views of
each image, each view's positive the other view of the same image. Fix: divide the
cosines by a temperature (0.05).

Measured (300 steps): a nearest-centroid probe on the encoder's normalised features
(centroids from one half of the digits, read on the other) scores 0.687 with the bug,
0.772 for the fixed twin; the bug's loss ends at 3.52 (its floor 2.25), the twin's at 1.82.

How watch finds it: every score the cross-entropy got, on its recorded calls up to step
256, lies in [-1, 1], the top score of each late call pressed against 1, and the run
learns poorly: SQUASHED_LOGITS (cosines as logits, no temperature).
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "Add temperature parameter to contrastive losses"
LINK = "https://github.com/lightonai/pylate/pull/115"
EXPECTED = ("SQUASHED_LOGITS",)
STEPS = 300
TEMPERATURE = 0.05


def encoder():
    return nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 32))


def view(x, generator):
    """One random view of 8x8 digits: shifted by up to a pixel, with pixel noise."""
    images = x.reshape(-1, 8, 8)
    dx, dy = torch.randint(-1, 2, (2,), generator=generator).tolist()
    images = torch.roll(images, shifts=(dy, dx), dims=(1, 2))
    noise = 0.1 * torch.randn(images.shape, generator=generator)
    return (images + noise).reshape(-1, 64)


def centroid_probe(model, x, y):
    with torch.no_grad():
        z = F.normalize(model(x), dim=1)
    half = len(x) // 2
    centroids = torch.stack([z[:half][y[:half] == c].mean(0) for c in range(10)])
    predicted = torch.cdist(z[half:], centroids).argmin(1)
    return (predicted == y[half:]).float().mean().item()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(0)
    x, y = classification()
    model = encoder()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    losses = []
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, _ in batches(x, y, steps):
            optimizer.zero_grad()
            anchors = F.normalize(model(view(xb, generator)), dim=1)
            others = F.normalize(model(view(xb, generator)), dim=1)
            similarity = anchors @ others.T
            if fixed:
                logits = similarity / TEMPERATURE
            else:                   # BUG: the cosines themselves as logits, no temperature
                logits = similarity
            loss = F.cross_entropy(logits, torch.arange(len(xb)))
            loss.backward()
            optimizer.step()
            mon.step(loss)
            losses.append(loss.item())
    mon.probe_accuracy = round(centroid_probe(model, x, y), 3)
    mon.final_loss = round(sum(losses[-20:]) / 20, 3)
    return mon
