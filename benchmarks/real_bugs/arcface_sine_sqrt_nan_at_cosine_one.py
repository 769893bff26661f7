"""An ArcFace head that takes sin(theta) as sqrt(1 - cos^2) with no guard on the cosine: the
moment one feature lies exactly on (or exactly opposite) a class weight, cos(theta)
rounds to +-1, 1 - cos^2 is 0, and the backward of the square root divides by zero. The
entry is a non-target class (its cos(theta + m) is thrown away by the one-hot mix), so the
incoming gradient is 0 and 0 / 0 = NaN: the loss of that step is finite, its gradients
are not, the optimizer writes NaN into every weight and the model is gone from the next
step on. In a 2-D embedding (the usual set-up for drawing the margin on a circle) exact
+-1 cosines come within a few dozen steps.

Reported: "About the range of cosine" -
https://github.com/ronghuaiyang/arcface-pytorch/issues/68 ("I think it is better to limit
the range of cosine like: cosine = F.linear(F.normalize(input),
F.normalize(self.weight)).clamp(-1+eps,1-eps), because in my experiment, when
cosine(theta) == 1 the loss would become NaN"). The head here is the repository's
ArcMarginProduct (s=30, m=0.5, easy_margin=False): sine = sqrt((1 - cos^2).clamp(0, 1)),
phi = cos(theta + m) where theta + m < pi and cos - mm past it, the one-hot mix, times s.
Set-up: the digits as ten identities, a 64-128-2 MLP embedding, Adam at 1e-3, 400 steps of
64. Held out: 500 digits, each given the class whose weight row is nearest in angle.
Fix: clamp the cosine to [-1 + 1e-7, 1 - 1e-7] before the square root (the report's fix).

Measured (held-out nearest-centre accuracy): 0.100 with the bug, 0.704 fixed; seeds + 1000:
0.100 vs 0.714.
"""
import math

import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._arc350 import digit_identities, embedder, nearest_centre_accuracy
from benchmarks.real_bugs._common import batches

TITLE = "About the range of cosine"
LINK = "https://github.com/ronghuaiyang/arcface-pytorch/issues/68"
EXPECTED = ("NAN_BORN_IN_BACKWARD",)
STEPS = 400
DIM = 2
S, M = 30.0, 0.5
EPS = 1e-7


class ArcMarginProduct(nn.Module):
    def __init__(self, in_features, out_features, s=S, m=M, fixed=False):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(out_features, in_features))
        nn.init.xavier_uniform_(self.weight)
        self.s, self.fixed = s, fixed
        self.cos_m, self.sin_m = math.cos(m), math.sin(m)
        self.th = math.cos(math.pi - m)
        self.mm = math.sin(math.pi - m) * m

    def forward(self, features, label):
        cosine = F.linear(F.normalize(features), F.normalize(self.weight))
        if self.fixed:          # the fix: keep the cosine off +-1
            cosine = cosine.clamp(-1 + EPS, 1 - EPS)
        # BUG (not fixed): at cosine == +-1 the sqrt's backward divides by zero
        sine = torch.sqrt((1.0 - torch.pow(cosine, 2)).clamp(0, 1))
        phi = cosine * self.cos_m - sine * self.sin_m
        phi = torch.where(cosine > self.th, phi, cosine - self.mm)
        one_hot = torch.zeros_like(cosine)
        one_hot.scatter_(1, label.view(-1, 1).long(), 1)
        return ((one_hot * phi) + ((1.0 - one_hot) * cosine)) * self.s


class FaceModel(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.body = embedder(DIM)
        self.head = ArcMarginProduct(DIM, 10, fixed=fixed)

    def forward(self, x, label):
        return self.head(self.body(x), label)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_held, y_held = digit_identities()
    model = FaceModel(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps, seed=0):
            optimizer.zero_grad()
            loss = criterion(model(xb, yb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = round(
        nearest_centre_accuracy(model.body, model.head.weight, x_held, y_held), 3)
    return mon
