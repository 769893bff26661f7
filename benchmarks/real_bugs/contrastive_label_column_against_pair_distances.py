"""A siamese network's contrastive loss multiplies the pair labels, shaped ``(N, 1)`` by the
dataset (``torch.from_numpy(np.array([int(label)]))`` per pair), with the pair distances of
``F.pairwise_distance``, shaped ``(N,)``: broadcasting makes an ``(N, N)`` table in which
every pair's distance is pulled together or pushed apart by EVERY label of the batch. With
about half the labels "same" and half "different", each distance gets both pulls; the
embedding learns little about which pairs match. No warning: this is plain tensor
arithmetic, not a loss module.

Reported: "label.shape and euclidean_distance.shape are inconsistent" -
https://github.com/harveyslash/Facial-Similarity-with-Siamese-Networks-in-Pytorch/issues/26
(the popular facial-similarity tutorial; "the label shape is [50,1], while distance shape is
[50]. You multiply a 2D tensor by a 1D tensor, so you end up with a loss tensor with shape
[50,50], which is a wrong shape and wrong value"; with the shapes matched "the siamese net has
a better performance"; the same bug again in issue #27, fixed there with
``F.pairwise_distance(output1, output2, keepdim=True)``: "that's why the loss curve is
instability, and test performance is bad"). Here the tutorial's loss and label convention (0 = same, 1 = different, margin 2)
on pairs of 8x8 digits.

Measured (300 steps, batch 64; verification on 2000 fresh pairs, "same" when the distance is
below the midpoint of the two classes' median distances): bug 64.3% correct, fixed 92.8%.

Fix: make the two the same shape, ``F.pairwise_distance(a, b, keepdim=True)`` against the
(N, 1) labels (or ``label.view(-1)``).
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import classification

TITLE = "label.shape and euclidean_distance.shape are inconsistent"
LINK = ("https://github.com/harveyslash/Facial-Similarity-with-Siamese-Networks-in-Pytorch/"
        "issues/26")
EXPECTED = ("LOSS_BROADCAST_OVER_BATCH",)
STEPS = 300
MARGIN = 2.0


class SiameseNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.tower = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 64), nn.ReLU(),
                                   nn.Linear(64, 8))

    def forward(self, first, second):
        return self.tower(first), self.tower(second)


def pairs(y, count, generator):
    """Indices of ``count`` pairs, half of one digit, and their labels as the tutorial's
    dataset gives them: one ``[int(different)]`` array per pair, so (count, 1)."""
    first = torch.randint(0, len(y), (count,), generator=generator)
    second = torch.randint(0, len(y), (count,), generator=generator)
    for k in range(count // 2):
        while y[second[k]] != y[first[k]]:
            second[k] = torch.randint(0, len(y), (1,), generator=generator)
    return first, second, (y[first] != y[second]).float().view(-1, 1)


def contrastive_loss(output1, output2, label, fixed):
    # BUG when not fixed: (N,) distances against (N, 1) labels -> an (N, N) table
    distance = F.pairwise_distance(output1, output2, keepdim=fixed)
    return torch.mean((1 - label) * torch.pow(distance, 2)
                      + label * torch.pow(torch.clamp(MARGIN - distance, min=0.0), 2))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(0)
    x, y = classification()
    model = SiameseNetwork()
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-4)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            first, second, label = pairs(y, 64, generator)
            optimizer.zero_grad()
            output1, output2 = model(x[first], x[second])
            loss = contrastive_loss(output1, output2, label, fixed)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
