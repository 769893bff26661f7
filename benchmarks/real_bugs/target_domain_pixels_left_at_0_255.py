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
import torch
from torch import nn

from benchmarks.real_bugs._common import classification
from benchmarks.real_bugs._domains import ReverseGradient, accuracies_on, split_domains, train_dann

TITLE = ("Minimal Code Changes to Support Latest PyTorch and Bug Fixed for Extremely Low "
         "Adaptation Accuracy")
LINK = "https://github.com/corenel/pytorch-adda/pull/29"
EXPECTED = ("UNNORMALIZED_INPUTS",)
STEPS = 300
DOMAIN_WEIGHT = 0.1


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
    source, (target, labels) = split_domains(*classification(), seed)   # pixels in [0, 1]
    if not fixed:
        target = target * 255                   # BUG: the target loader's 0-255 pixels
    return source, (target, labels)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (xs, ys), (xt, _) = domains(0, fixed)
    model = DANN()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    return train_dann(model, optimizer, (xs, ys), xt, steps, watch)


def accuracies(model, seed=0, fixed=False):
    """(source accuracy, target accuracy), each domain read as its own loader gives it."""
    return accuracies_on(model, *domains(seed, fixed))
