"""Domain-adversarial training (DANN) whose gradient reversal layer is negated twice: the
layer's hand-written backward already returns ``grad_output.neg() * lambda``, and the
schedule's gamma was set to -10, so ``lambda = 2 / (1 + exp(-gamma p)) - 1`` is negative
for the whole run. The two signs cancel: the domain classifier's gradient reaches the
feature extractor with its own sign, and the features learn to tell the domains apart
instead of hiding them - the opposite of domain adaptation.

Reported: "lambda for GRL is minus，but the grad has been reversal before multiply lambda." -
https://github.com/CuthbertCai/pytorch_DANN/issues/10 (gamma = -10 in params.py makes lambda
always negative while the GRL's backward already negates, "the grad is always positive,
which it is different from what the article said"; the author: "I think gamma should be
10"). Here the source domain is half of the 8x8 digits, the target domain the other half
with its contrast lowered (x * 0.6 + 0.3), unlabelled; a feature MLP feeds a label head
(source labels) and, through the reversal layer, a domain head; the schedule's lambda is
scaled by 0.1 (the features feel a tenth of the domain gradient, the domain head all of it).
Fix: gamma = 10 (lambda rises from 0 to 0.1, positive).

Measured (300 steps, Adam 1e-3): the bug's summed loss (labels + domains) falls to 0.24
(mean of the last 10 steps: the domain head separates the domains), target-domain accuracy
0.54 with source accuracy 0.95; the fixed twin's summed loss stays at 0.83 (the domain term
near log 2: the domains confused), target accuracy 0.84, source 0.95. With the seeds
shifted by 1000 and 2000 (the benchmark's --shift-seeds): target accuracy 0.80 and 0.42
against the twin's 0.73 and 0.63, source accuracy 0.95 throughout. The domains are always
separated (the report's point: the reversal does not reverse); the target accuracy it costs
varies with the draw, and at one of three draws the bug scored higher. (A first draft with
separate forward passes per domain: 0.51 and 0.27 against 0.71 and 0.87 at seeds 0 and 1;
lambda scaled by 0.3 instead of 0.1: 0.40, 0.74, 0.40 against 0.58, 0.69, 0.44.)
"""
import math

import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import classification

TITLE = "lambda for GRL is minus，but the grad has been reversal before multiply lambda."
LINK = "https://github.com/CuthbertCai/pytorch_DANN/issues/10"
EXPECTED = ("GRADIENT_REVERSAL_NOT_REVERSING",)
STEPS = 300
BATCH = 64
DOMAIN_WEIGHT = 0.1


class GradientReversal(torch.autograd.Function):
    """Identity forward; backward multiplies the gradient by -lambda."""

    @staticmethod
    def forward(ctx, x, coefficient):
        ctx.coefficient = coefficient
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output.neg() * ctx.coefficient, None


class DANN(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 32),
                                      nn.ReLU())
        self.classifier = nn.Linear(32, 10)
        self.domain = nn.Sequential(nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 1))

    def forward(self, x, coefficient=0.0):
        features = self.features(x)
        reversed_features = GradientReversal.apply(features, coefficient)
        return self.classifier(features), self.domain(reversed_features).squeeze(1)


def coefficient(progress, fixed):
    gamma = 10 if fixed else -10                          # BUG: -10 makes lambda negative
    return DOMAIN_WEIGHT * (2 / (1 + math.exp(-gamma * progress)) - 1)


def domains(seed):
    x, y = classification()
    order = torch.from_numpy(np.random.default_rng(seed).permutation(len(x)))
    half = len(x) // 2
    source = x[order[:half]], y[order[:half]]
    target = x[order[half:]] * 0.6 + 0.3, y[order[half:]]
    return source, target


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (xs, ys), (xt, _) = domains(0)
    rng = np.random.default_rng(1)
    model = DANN()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    is_target = torch.cat([torch.zeros(BATCH), torch.ones(BATCH)])
    with nd.watch(model, optimizer, **watch) as mon:
        for step in range(steps):
            i = torch.from_numpy(rng.integers(0, len(xs), BATCH))
            j = torch.from_numpy(rng.integers(0, len(xt), BATCH))
            logits, domain_logits = model(torch.cat([xs[i], xt[j]]),
                                          coefficient(step / steps, fixed))
            loss = (nn.functional.cross_entropy(logits[:BATCH], ys[i])
                    + nn.functional.binary_cross_entropy_with_logits(domain_logits,
                                                                     is_target))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def accuracies(model, seed=0):
    """(source accuracy, target accuracy) of a trained DANN: how the report's bug shows."""
    (xs, ys), (xt, yt) = domains(seed)
    with torch.no_grad():
        return tuple((model(x)[0].argmax(1) == y).float().mean().item()
                     for x, y in ((xs, ys), (xt, yt)))
