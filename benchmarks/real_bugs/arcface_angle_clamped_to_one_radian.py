"""An ArcFace header that clamps the ANGLE where the cosine was meant to be clamped:
``theta = torch.acos(logits).clamp(-1, 1)``. acos returns angles in [0, pi], so the clamp
caps every angle at 1 radian (57 degrees). A fresh embedding sits near 90 degrees from
every class weight, so the target logit cos(min(theta, 1) + m) * s is one constant,
cos(1.5) * s, for almost every row, and its gradient is exactly zero: nothing ever pulls a
feature towards its own class weight. The loss can still be driven down - by pushing the
other classes' cosines towards -1, with the target's logit held up by the clamp - so the
training loss falls towards zero while the features never gather around their class: the
nearest class weight of a held-out digit is mostly the wrong one.

Reported: "Found two flaws in ArcMarginHeader" -
https://github.com/jonasgrebe/pt-femb-face-embeddings/issues/3 ("theta =
torch.acos(logits).clamp(-1, 1) The arccos must not be clamped to (-1, 1), as the returned
function values are between 0 and pi"; fixed in pull request 4). The report's other flaw,
the weight wrapped again as a new ``nn.Parameter`` in every forward (so the optimizer's
copy never moves), is left out here: in a quick check of this set-up it did not hurt
(held-out 0.934 with it against 0.928 without), and both runs below normalise the weight
inside forward instead. The header is the repository's ArcMarginHeader as ArcFaceHeader
uses it (m2 = 0.5, s = 30 here): cosines clamped to [-1 + 1e-6, 1 - 1e-6], theta = acos,
the one-hot mix of cos(theta + m) and the cosines, times s.
Set-up: the digits as ten identities, a 64-128-16 MLP embedding, Adam at 1e-3, 400 steps of
64. Held out: 500 digits, each given the class whose weight row is nearest in angle.
Fix: no clamp on theta (the cosine is already clamped before acos).

Measured (held-out nearest-centre accuracy): 0.238 with the bug, 0.938 fixed; seeds + 1000:
0.132 vs 0.946. The bug's training loss ends at 0.000 (last 20 steps), the twin's at 0.073.

EXPECTED: no code names a clamp that freezes the target logit; DEAD_RELU (class scores
tied at one floor by a clamp or ReLU on the logits, so their gradient is zero) is the
nearest.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._arc350 import digit_identities, embedder, nearest_centre_accuracy
from benchmarks.real_bugs._common import batches

TITLE = "Found two flaws in ArcMarginHeader"
LINK = "https://github.com/jonasgrebe/pt-femb-face-embeddings/issues/3"
EXPECTED = ("DEAD_RELU",)
STEPS = 400
DIM = 16
S, M = 30.0, 0.5


class ArcMarginHeader(nn.Module):
    def __init__(self, in_features, out_features, s=S, m1=1.0, m2=M, m3=0.0, fixed=False):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features, bias=False)
        self.s, self.m1, self.m2, self.m3 = s, m1, m2, m3
        self.epsilon = 1e-6
        self.fixed = fixed

    def forward(self, features, label):
        weight = F.normalize(self.linear.weight)
        logits = F.linear(F.normalize(features), weight)
        logits = logits.clamp(-1 + self.epsilon, 1 - self.epsilon)
        theta = torch.acos(logits)
        if not self.fixed:      # BUG: the angle, in [0, pi], capped at 1 radian
            theta = theta.clamp(-1, 1)
        target_logits = torch.cos(self.m1 * theta + self.m2) - self.m3
        one_hot = torch.zeros(logits.size())
        one_hot.scatter_(1, label.view(-1, 1).long(), 1.0)
        output = one_hot * target_logits + (1.0 - one_hot) * logits
        return output * self.s


class FaceModel(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.body = embedder(DIM)
        self.header = ArcMarginHeader(DIM, 10, fixed=fixed)

    def forward(self, x, label):
        return self.header(self.body(x), label)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_held, y_held = digit_identities()
    model = FaceModel(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    losses = []
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps, seed=0):
            optimizer.zero_grad()
            loss = criterion(model(xb, yb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
            losses.append(loss.item())
    mon.held_out_accuracy = round(
        nearest_centre_accuracy(model.body, model.header.linear.weight, x_held, y_held), 3)
    mon.final_loss = round(sum(losses[-20:]) / 20, 3)
    return mon
