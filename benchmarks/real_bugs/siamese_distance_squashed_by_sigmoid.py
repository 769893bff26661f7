"""A siamese network trained with the contrastive loss (margin 1) passes its Euclidean
distance through a final ``Dense(1, activation="sigmoid")``: the "distance" the loss reads
can never reach the margin, so every dissimilar pair keeps a loss however far apart the
towers put it, and the squashing layer, not the embedding, absorbs the training signal.

Reported: "Fix logic error in Siamese Network: Remove inconsistent sigmoid activation for
Contrastive Loss" - https://github.com/keras-team/keras-io/pull/2261 ("Because sigmoid
squashes values between 0 and 1, the model could never output a distance greater than
1.0. Since the Contrastive Loss uses a margin of 1.0, the model was not able to push
dissimilar images far enough apart"; merged, for issue #2230). Here, as in the keras
example, a tanh tower, the distance between the two embeddings, batch normalisation and
a sigmoid unit, trained by RMSprop on balanced pairs of digits (label 1: different
digits). Fix: the raw distance is the output.

Measured when written: on 2,000 fresh balanced pairs, thresholding the output at half
the margin verifies 51% correctly after the bug's 300 steps, 92% after the fixed twin's.

Why watch misses it: the loss is hand-written, so no loss call (with an output and a
target to compare ranges) is seen, and in the loss's graph the margin is gone: ``margin -
prediction`` keeps no operand once it is a Python number, so the hinge's threshold cannot
be read after the step. The run's first updates are large (RMSprop, without bias
correction, moves each weight by about ten times its rate on its first steps), and
LR_TOO_HIGH used to name them with the flat loss; it now needs updates that stay large past
the optimizer's first steps, and they shrink by themselves here (0.13 of the weights at
step 0, 0.05 by step 8), so the run is silent: the cause is the output's range, not the
rate (the fixed twin trains at the same rate). Naming it
would take the hinge's constant at forward time (a function mode on the first steps) and a
rule that a bounded output (sigmoid, tanh) is held against a margin at or past its bound,
while capsule-style margins under the bound (0.9 on a length in [0, 1)) stay silent.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import classification

TITLE = ("Fix logic error in Siamese Network: Remove inconsistent sigmoid activation for "
         "Contrastive Loss")
LINK = "https://github.com/keras-team/keras-io/pull/2261"
EXPECTED = ("BOUNDED_OUTPUT_UNREACHABLE_TARGET",)
STEPS = 300
MARGIN = 1.0


class Siamese(nn.Module):
    def __init__(self, squash):
        super().__init__()
        self.tower = nn.Sequential(nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 10), nn.Tanh())
        self.head = nn.Sequential(nn.BatchNorm1d(1), nn.Linear(1, 1), nn.Sigmoid()) \
            if squash else None

    def forward(self, a, b):
        distance = (self.tower(a) - self.tower(b)).pow(2).sum(1, keepdim=True)
        distance = distance.clamp_min(1e-7).sqrt()
        return (self.head(distance) if self.head is not None else distance)[:, 0]


def balanced_pairs(y, count, generator):
    """Indices of ``count`` pairs, half of one digit, half of two; label 1 = different."""
    first = torch.randint(0, len(y), (count,), generator=generator)
    second = torch.randint(0, len(y), (count,), generator=generator)
    for k in range(count // 2):   # the first half: redraw until the digit matches
        while y[second[k]] != y[first[k]]:
            second[k] = torch.randint(0, len(y), (1,), generator=generator)
    return first, second, (y[first] != y[second]).float()


def contrastive_loss(prediction, different, margin):
    return ((1 - different) * prediction.pow(2)
            + different * (margin - prediction).clamp_min(0).pow(2)).mean()



def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(0)
    x, y = classification()
    # BUG when not fixed: a sigmoid unit after the distance
    model = Siamese(squash=not fixed)
    optimizer = torch.optim.RMSprop(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            first, second, different = balanced_pairs(y, 64, generator)
            optimizer.zero_grad()
            loss = contrastive_loss(model(x[first], x[second]), different, MARGIN)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
