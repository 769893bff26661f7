"""A DANN training loop that computes the gradient-reversal coefficient's warm-up schedule
every step - lambda = 2 / (1 + exp(-10 p)) - 1, from 0 at the start to 1 at the end - and
never hands it to the model: ``forward(x, grl_lambda=1)`` is called as ``model(x)``, so the
default 1 reverses the domain gradient at full strength from the first step, while the
domain classifier is still random and the features still untrained. The adversarial term
disturbs the features before they have learned the classes; the run trains, the losses
look like any DANN run's, the computed lambda climbs as designed, and the target accuracy
ends lower.

Reported: "Bug in the Lambda value?" - https://github.com/p2irc/UDA4POC/issues/3 (the
lambda for the gradient reversal layer is well calculated, but the model's forward takes
``grl_lambda=1`` and is called without it, so the updated value is never used; the fix,
passing it on to the adaptation branch, was applied by the maintainer). Here DANN on the
8x8 digits (labelled source half, unlabelled target half with contrast lowered and lifted,
x * 0.5 + 0.4; benchmarks/real_bugs/_da.py): a batch-normalised MLP's features feed the
label head and, through the reversal layer, a domain classifier (64 -> 64 -> 1); Adam 1e-3,
64 source and 64 target rows a step. Fix: ``model(x, grl_lambda)``.

Measured (held-out target accuracy after 500 steps, source 0.96-0.97 in every run): seed 0,
0.64 for the bug against 0.77 for the fixed twin; seeds shifted by 1000, 0.52 against 0.70.
"""
import math

import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._da import BATCH, BatchNormNet, accuracy, domains, draw, is_target
from benchmarks.real_bugs._domains import ReverseGradient

TITLE = "Bug in the Lambda value?"
LINK = "https://github.com/p2irc/UDA4POC/issues/3"
EXPECTED = ("GRADIENT_REVERSAL_SCHEDULE_IGNORED",)
STEPS = 500


class DANN(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = BatchNormNet()
        self.discriminator = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1))

    def forward(self, x, grl_lambda=1.0):
        features = self.net.features(x)
        domain = self.discriminator(ReverseGradient.apply(features, grl_lambda))
        return self.net.head(features), domain.squeeze(1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(1)
    source, source_test, target, target_test = domains(0)
    model = DANN()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for step in range(steps):
            grl_lambda = 2 / (1 + math.exp(-10 * step / steps)) - 1
            xs, ys = draw(rng, source)
            xt, _ = draw(rng, target)
            if fixed:
                logits, domain_logits = model(torch.cat([xs, xt]), grl_lambda)
            else:       # BUG: the schedule is computed, the default 1 is used
                logits, domain_logits = model(torch.cat([xs, xt]))
            loss = (nn.functional.cross_entropy(logits[:BATCH], ys)
                    + nn.functional.binary_cross_entropy_with_logits(domain_logits,
                                                                     is_target()))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    label_only = nn.Sequential(model.net.features, model.net.head)
    mon.held_out_source_accuracy = accuracy(label_only, source_test)
    mon.held_out_target_accuracy = accuracy(label_only, target_test)
    return mon
