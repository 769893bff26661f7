"""Domain adaptation whose two data loaders scale the pixels differently: the source images
are brought to [0, 1], the target images are left at [0, 255]. Both domains go through the
same encoder, so the target batch is 255 times larger than anything the label classifier
was fit on; the adversarial alignment cannot undo a factor of 255 and the target accuracy
falls to near chance.

Reported: "Minimal Code Changes to Support Latest PyTorch and Bug Fixed for Extremely Low
Adaptation Accuracy" - https://github.com/corenel/pytorch-adda/pull/29 (the 10-15% target
accuracy reported in many issues "is due to the different normalization applied to MNIST
and USPS": MNIST loaded to 0-1, USPS to 0-255; with the latter changed to 0-1 the adapted
accuracy reached 97%). Here the source domain is half of the 8x8 digits in [0, 1], the
target the other half with its contrast lowered (x * 0.6 + 0.3), unlabelled, multiplied by
255 as the report's USPS loader did; a feature MLP feeds a label head (source labels) and,
through a gradient reversal layer (weight 0.1), a domain head; each step trains on one
batch holding 64 source and 64 target images.
Fix: the target images scaled to [0, 1] like the source images.

Measured (300 steps, Adam 1e-3, seed 0): source accuracy 0.89, target accuracy (target
images as its loader gives them) 0.57; the fixed twin: source 0.95, target 0.83.
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import classification

TITLE = ("Minimal Code Changes to Support Latest PyTorch and Bug Fixed for Extremely Low "
         "Adaptation Accuracy")
LINK = "https://github.com/corenel/pytorch-adda/pull/29"
EXPECTED = ("UNNORMALIZED_INPUTS",)
STEPS = 300
BATCH = 64
DOMAIN_WEIGHT = 0.1


class ReverseGradient(torch.autograd.Function):
    """Identity forward; backward multiplies the gradient by -weight."""

    @staticmethod
    def forward(ctx, x, weight):
        ctx.weight = weight
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad_output):
        return -ctx.weight * grad_output, None


class DANN(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 32),
                                      nn.ReLU())
        self.classifier = nn.Linear(32, 10)
        self.domain = nn.Sequential(nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 1))

    def forward(self, x):
        features = self.features(x)
        reversed_features = ReverseGradient.apply(features, DOMAIN_WEIGHT)
        return self.classifier(features), self.domain(reversed_features).squeeze(1)


def domains(seed, fixed):
    x, y = classification()                     # pixels in [0, 1]
    order = torch.from_numpy(np.random.default_rng(seed).permutation(len(x)))
    half = len(x) // 2
    target = x[order[half:]] * 0.6 + 0.3
    if not fixed:
        target = target * 255                   # BUG: the target loader's 0-255 pixels
    return (x[order[:half]], y[order[:half]]), (target, y[order[half:]])


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (xs, ys), (xt, _) = domains(0, fixed)
    rng = np.random.default_rng(1)
    model = DANN()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    is_target = torch.cat([torch.zeros(BATCH), torch.ones(BATCH)])
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            i = torch.from_numpy(rng.integers(0, len(xs), BATCH))
            j = torch.from_numpy(rng.integers(0, len(xt), BATCH))
            logits, domain_logits = model(torch.cat([xs[i], xt[j]]))
            loss = (nn.functional.cross_entropy(logits[:BATCH], ys[i])
                    + nn.functional.binary_cross_entropy_with_logits(domain_logits,
                                                                     is_target))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def accuracies(model, seed=0, fixed=False):
    """(source accuracy, target accuracy), each domain read as its own loader gives it."""
    (xs, ys), (xt, yt) = domains(seed, fixed)
    with torch.no_grad():
        return tuple((model(x)[0].argmax(1) == y).float().mean().item()
                     for x, y in ((xs, ys), (xt, yt)))
