"""Domain-adversarial training that passes the source batch and the target batch through
a batch-normalised feature extractor in two separate calls. Each call normalises with its
own batch's statistics, so during training the source features are normalised with
source statistics and the target features with target statistics - the label head learns
on features it will never see again. At evaluation the batch norms use their running
statistics, an average over the alternating source and target batches that fits neither
domain: the same network reads both domains worse than it did during training. Every loss
looks healthy (the source cross-entropy near zero, the domain classifier near chance).

Reported: "Handle BatchNorm and base_module call" -
https://github.com/scikit-adaptation/skada/issues/252 (skada's deep domain-adaptation base
class called the feature module separately on the source and on the target; the reporter:
"This can cause undesired behavior when using BatchNorm with the estimation of the batch
variance and mean", and proposed to concatenate source and target, forward once, and split
the features after; a maintainer agreed about the undesired behaviour; the same point is
https://github.com/adapt-python/adapt/issues/92). Here DANN on the 8x8 digits (labelled
source half, unlabelled target half with contrast lowered and lifted, x * 0.5 + 0.4;
benchmarks/real_bugs/_da.py): a batch-normalised MLP's features feed the label head
(source rows) and, through a gradient reversal layer (weight 0.1), a domain classifier;
Adam 1e-3, 64 source and 64 target rows a step. Fix: one forward of the concatenated
batch, split after.

Measured (held-out accuracy after 500 steps, in eval mode): seed 0, source 0.87 and target
0.66 for the bug against 0.97 and 0.90 for the fixed twin; seeds shifted by 1000, source
0.88 and target 0.80 against 0.97 and 0.90.
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._da import BATCH, BatchNormNet, accuracy, domains, draw, is_target
from benchmarks.real_bugs._domains import ReverseGradient

TITLE = "Handle BatchNorm and base_module call"
LINK = "https://github.com/scikit-adaptation/skada/issues/252"
EXPECTED = ("NORM_STATISTICS_SHARED_ACROSS_SITES",)
STEPS = 500
REVERSAL_WEIGHT = 0.1


class DANN(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = BatchNormNet()
        self.discriminator = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1))

    def forward(self, x):
        return self.net(x)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(1)
    source, source_test, target, target_test = domains(0)
    model = DANN()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            xs, ys = draw(rng, source)
            xt, _ = draw(rng, target)
            if fixed:       # one forward: both domains share the batch statistics
                features = model.net.features(torch.cat([xs, xt]))
                fs, ft = features[:BATCH], features[BATCH:]
            else:           # BUG: each domain normalised with its own batch statistics
                fs, ft = model.net.features(xs), model.net.features(xt)
            domain_logits = model.discriminator(
                ReverseGradient.apply(torch.cat([fs, ft]), REVERSAL_WEIGHT)).squeeze(1)
            loss = (nn.functional.cross_entropy(model.net.head(fs), ys)
                    + nn.functional.binary_cross_entropy_with_logits(domain_logits,
                                                                     is_target()))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    mon.held_out_source_accuracy = accuracy(model, source_test)
    mon.held_out_target_accuracy = accuracy(model, target_test)
    return mon
