"""Domain-adversarial training whose optimizer is built from the feature extractor, the
bottleneck and the label classifier only: the domain discriminator's weights are never
handed to it, so the discriminator stays at its random initialisation. The reversed
gradient the features receive comes from a random, untrained discriminator, which any
feature map fools; the source and target features are never pulled together.

Reported: "transferlearning/code/deep/DAAN/ train.py line 68 no bottle_neck parameters in
optimizer" - https://github.com/jindongwang/transferlearning/issues/123 (the reporter asked
why the discriminator's weights are not in the optimizer; the maintainer: yes, the
discriminator needs a learning rate in the optimizer, it is learnable, "an oversight when
rewriting", fixed). Here the source domain is half of the 8x8 digits, the target the other
half with its contrast lowered (x * 0.6 + 0.3), unlabelled; a feature MLP and a bottleneck
feed a label head (source labels) and, through a gradient reversal layer (weight 0.1), a
domain discriminator; the optimizer lists its parameter groups module by module, as DAAN's
train.py does.
Fix: the discriminator's parameters added to the optimizer's groups.

Measured (300 steps, Adam 1e-3, seed 0): source accuracy 0.95, target accuracy 0.28 (the
reversed gradient of a fixed random discriminator pushes the features to grow; the run's
loss diverges); the fixed twin: source 0.95, target 0.83.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import classification
from benchmarks.real_bugs._domains import ReverseGradient, accuracies_on, split_domains, train_dann

TITLE = ("transferlearning/code/deep/DAAN/ train.py line 68 no bottle_neck parameters in "
         "optimizer")
LINK = "https://github.com/jindongwang/transferlearning/issues/123"
EXPECTED = ("OPTIMIZER_MISSING_PARAMS",)
STEPS = 300
DOMAIN_WEIGHT = 0.1


class DANN(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(64, 64), nn.ReLU())
        self.bottleneck = nn.Sequential(nn.Linear(64, 32), nn.ReLU())
        self.classifier = nn.Linear(32, 10)
        self.discriminator = nn.Sequential(nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 1))

    def forward(self, x):
        features = self.bottleneck(self.features(x))
        reversed_features = ReverseGradient.apply(features, DOMAIN_WEIGHT)
        return self.classifier(features), self.discriminator(reversed_features).squeeze(1)


def domains(seed):
    return split_domains(*classification(), seed)


def parameter_groups(model, fixed):
    groups = [{"params": model.features.parameters()},
              {"params": model.bottleneck.parameters()},
              {"params": model.classifier.parameters()}]
    if fixed:
        groups.append({"params": model.discriminator.parameters()})
    return groups                       # BUG (fixed=False): the discriminator is left out


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (xs, ys), (xt, _) = domains(0)
    model = DANN()
    optimizer = torch.optim.Adam(parameter_groups(model, fixed), lr=1e-3)
    return train_dann(model, optimizer, (xs, ys), xt, steps, watch)


def accuracies(model, seed=0):
    """(source accuracy, target accuracy) of a trained DANN."""
    return accuracies_on(model, *domains(seed))
