"""Domain-adversarial training (DANN) whose domain discriminator reads the shared features
directly, without the gradient-reversal layer (the custom ``torch.autograd.Function`` that is
the identity forward and negates the gradient backward). The domain loss is then MINIMISED
by the feature extractor as well as by the discriminator: the features learn to tell the
source from the target domain - the opposite of the adaptation DANN exists for - and the
label classifier, trained on source features only, transfers worse to the target domain.
Every loss falls (the domain loss fastest), source accuracy is perfect, and nothing errs.

Reported: "About gradient reverse layer" - https://github.com/zou-longkun/GAST/issues/3
(a reader asks whether the gradient reverse layer was missed in the model's domain head; the
author: "Thanks for reminding, I have already added gradient reverse layer in
Model_Norm.py"). Here the digits split in half: a labelled source half and an unlabelled
target half whose pixels are dimmed to 0.6 and overlaid with uniform noise (0.4 x U(0, 1));
a 64-64-32 feature extractor, a linear label head and a 32-32-1 domain head trained together
with Adam at 1e-3 on source cross-entropy plus the domain BCE, the reversal's weight ramped
with DANN's 2/(1+exp(-10p))-1 schedule. Fix: route the features to the domain head through
the gradient-reversal Function.

Measured (1500 steps; accuracy on the 899 target-domain digits, whose labels training never
sees): seed 0: 0.357 with the bug against 0.831 for the fixed twin; seeds shifted by 1000:
0.573 against 0.714 (source accuracy is about 1.0 in both runs).
"""
import math

import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import classification

TITLE = "About gradient reverse layer"
LINK = "https://github.com/zou-longkun/GAST/issues/3"
EXPECTED = ("ADVERSARIAL_HEAD_NOT_REVERSED",)
STEPS = 1500
BATCH = 64


class ReverseGradient(torch.autograd.Function):
    """Identity forward; the gradient times -weight backward."""

    @staticmethod
    def forward(ctx, features, weight):
        ctx.weight = weight
        return features.view_as(features)

    @staticmethod
    def backward(ctx, grad_output):
        return -ctx.weight * grad_output, None


class DANN(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 32), nn.ReLU())
        self.labels = nn.Linear(32, 10)
        self.domain = nn.Sequential(nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 1))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    order = torch.randperm(len(x))
    x, y = x[order], y[order]
    half = len(x) // 2
    x_source, y_source = x[:half], y[:half]
    x_target = 0.6 * x[half:] + 0.4 * torch.rand(len(x) - half, 64)
    y_target = y[half:]                                   # held out: never trained on
    model = DANN()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    domains = torch.cat([torch.zeros(BATCH), torch.ones(BATCH)])
    with nd.watch(model, optimizer, **watch) as mon:
        for step in range(steps):
            i = torch.randint(0, len(x_source), (BATCH,))
            j = torch.randint(0, len(x_target), (BATCH,))
            source, target = model.features(x_source[i]), model.features(x_target[j])
            label_loss = nn.functional.cross_entropy(model.labels(source), y_source[i])
            both = torch.cat([source, target])
            if fixed:
                weight = 2 / (1 + math.exp(-10 * step / steps)) - 1
                both = ReverseGradient.apply(both, weight)
            # BUG (fixed=False): the domain head reads the features with no reversal
            domain_loss = nn.functional.binary_cross_entropy_with_logits(
                model.domain(both).squeeze(1), domains)
            loss = label_loss + domain_loss
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        predicted = model.labels(model.features(x_target)).argmax(1)
    mon.held_out_target_accuracy = round(float((predicted == y_target).float().mean()), 3)
    return mon
