"""Late fusion that averages the class probabilities of branches each trained on its own
loss: nothing learns how much to trust each modality, so the weak branch's guesses are
mixed in with the same weight as the strong one's.

Reported: "Merging branch predictions" - https://github.com/ndrplz/dreyeve/issues/8 ("my
image branch seems to be significantly outperforming my optical flow branch ... if my
final multi branch architecture simply averages the outputs of the two, will it not just
perform worse than if only the better performing branch is used?"; the maintainer: the
branches interfere without the fine-tuning phase in which "the supervision will learn how
to weight each contribution"). Here an image branch (noisy 8x8 digits) and a metadata
branch (six standardised columns), each with its own classifier and its own
cross-entropy, the prediction the mean of their softmaxes. Fix: supervise the fusion - one
cross-entropy on the sum of the branch logits, so the training weighs each modality.

Measured harm (held-out accuracy, 600 rows): 0.78 vs 0.82; seeds + 1000: 0.72 vs 0.78.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._fusion import accuracy, fusion_data, standardiser

TITLE = "Merging branch predictions"
LINK = "https://github.com/ndrplz/dreyeve/issues/8"
EXPECTED = ("LOSS_PLATEAU",)   # closest: no code names a fused output without a loss
STEPS = 300


class LateFusion(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.image = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, classes))
        self.meta = nn.Sequential(nn.Linear(6, 32), nn.ReLU(), nn.Linear(32, classes))

    def forward(self, img, meta):
        return self.image(img), self.meta(meta)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (img, meta, y), (timg, tmeta, ty) = fusion_data()
    mean, std = standardiser(meta)
    meta, tmeta = (meta - mean) / std, (tmeta - mean) / std
    torch.manual_seed(1)
    model = LateFusion()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for idx in index_batches(len(y), steps, 64):
            a, b = model(img[idx], meta[idx])
            if fixed:
                loss = loss_fn(a + b, y[idx])
            else:                           # BUG: each branch on its own loss
                loss = loss_fn(a, y[idx]) + loss_fn(b, y[idx])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)

    def predict(im, me):
        a, b = model(im, me)
        return a + b if fixed else (a.softmax(1) + b.softmax(1)) / 2
    mon.heldout = accuracy(predict, timg, tmeta, ty)
    return mon
