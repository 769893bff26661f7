"""A gradient reversal layer placed at the END of the domain classifier - after its last
linear layer, right before the loss - instead of between the shared features and the
classifier. Reversal there flips the gradient of the domain classifier's own weights too:
instead of learning to tell the domains apart while the features learn to hide them, the
classifier and the features together climb the domain loss. The domain logits are pushed
to ever larger wrong values, the features grow with them, and the label head, trained on
the source, reads the target through features built to be maximally wrong about the domain.

Reported: "Getting nan losses after gradient reversal" -
https://github.com/janfreyberg/pytorch-revgrad/issues/5 (an adversarial colour branch
``Sequential(Linear, Linear, RevGrad())`` on a shared trunk, the layout of the package's
README example; the loss went to NaN after a few iterations; the maintainer: placing the
RevGrad layer right before the loss should make the weights explode in some direction; the
layer belongs after the shared part of the network and BEFORE the layers that predict the
adversarial target). Here DANN on the 8x8 digits (labelled source half, unlabelled target
half with contrast lowered and lifted, x * 0.5 + 0.4; benchmarks/real_bugs/_da.py): a
batch-normalised MLP's features feed the label head and a domain classifier (64 -> 64 ->
1), the reversal weight 0.1, Adam 1e-3, 64 source and 64 target rows a step. Fix: the
reversal layer between the features and the domain classifier.

Measured (held-out accuracy after 500 steps): seed 0, target 0.11 for the bug against 0.90
for the fixed twin (source 0.96 against 0.97); seeds shifted by 1000, target 0.07 against
0.90 (source 0.97 against 0.97). The bug run's loss ends near 3e3 (domain BCE on logits in
the thousands); BCE-with-logits stays finite, so no NaN here.
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._da import BATCH, BatchNormNet, accuracy, domains, draw, is_target
from benchmarks.real_bugs._domains import ReverseGradient

TITLE = "Getting nan losses after gradient reversal"
LINK = "https://github.com/janfreyberg/pytorch-revgrad/issues/5"
EXPECTED = ("GRADIENT_REVERSAL_AFTER_ADVERSARY",)
STEPS = 500
REVERSAL_WEIGHT = 0.1


class DANN(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.fixed = fixed
        self.net = BatchNormNet()
        self.discriminator = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1))

    def forward(self, x):
        features = self.net.features(x)
        if self.fixed:      # reversal between the shared features and the adversary
            domain = self.discriminator(ReverseGradient.apply(features, REVERSAL_WEIGHT))
        else:               # BUG: reversal after the adversary's last layer
            domain = ReverseGradient.apply(self.discriminator(features), REVERSAL_WEIGHT)
        return self.net.head(features), domain.squeeze(1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(1)
    source, source_test, target, target_test = domains(0)
    model = DANN(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            xs, ys = draw(rng, source)
            xt, _ = draw(rng, target)
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
