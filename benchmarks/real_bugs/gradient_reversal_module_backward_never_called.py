"""Domain-adversarial training whose gradient reversal layer is an ``nn.Module`` with a
``backward`` method: autograd never calls a module's ``backward`` (only a
``torch.autograd.Function``'s), so the layer is a plain identity in both directions. The
domain classifier's gradient reaches the feature extractor with its own sign: the features
learn to tell the domains apart instead of hiding them, and no adaptation happens.

Reported: "Does gradient reversal layer work?" - https://github.com/hash2430/pitchtron/issues/3
(the reporter put an assert in the GRL module's ``backward`` and it never ran: "the gradient
of check_layer was not reversal", while a ``torch.autograd.Function`` implementation did
reverse it). Here the source domain is half of the 8x8 digits, the target the other half
with its contrast lowered (x * 0.6 + 0.3), unlabelled; a feature MLP feeds a label head
(source labels) and, through the reversal layer (weight 0.1), a domain head.
Fix: the reversal written as a ``torch.autograd.Function`` (identity forward, backward
``-lambda * grad``), applied by the module's forward.

Measured (300 steps, Adam 1e-3, seed 0): source accuracy 0.94, target accuracy 0.41; the
fixed twin: source 0.95, target 0.83.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import classification
from benchmarks.real_bugs._domains import ReverseGradient, accuracies_on, split_domains, train_dann

TITLE = "Does gradient reversal layer work?"
LINK = "https://github.com/hash2430/pitchtron/issues/3"
# MODULE_BACKWARD_NEVER_CALLED (built after the batch was scored, batch 107) names the
# report's mechanism exactly; GRADIENT_REVERSAL_NOT_REVERSING, the code chosen as it came
EXPECTED = ("GRADIENT_REVERSAL_NOT_REVERSING", "MODULE_BACKWARD_NEVER_CALLED")
STEPS = 300
DOMAIN_WEIGHT = 0.1


class ModuleWithBackward(nn.Module):
    """The report's layer: a module's ``backward`` is never called by autograd."""

    def forward(self, x):
        return x

    def backward(self, grad_output):          # BUG: dead code, autograd never calls it
        return -DOMAIN_WEIGHT * grad_output


class FunctionReversal(nn.Module):
    def forward(self, x):
        return ReverseGradient.apply(x, DOMAIN_WEIGHT)


class DANN(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 32),
                                      nn.ReLU())
        self.classifier = nn.Linear(32, 10)
        self.reversal = FunctionReversal() if fixed else ModuleWithBackward()
        self.domain = nn.Sequential(nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 1))

    def forward(self, x):
        features = self.features(x)
        return (self.classifier(features),
                self.domain(self.reversal(features)).squeeze(1))


def domains(seed):
    return split_domains(*classification(), seed)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (xs, ys), (xt, _) = domains(0)
    model = DANN(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    return train_dann(model, optimizer, (xs, ys), xt, steps, watch)


def accuracies(model, seed=0):
    """(source accuracy, target accuracy) of a trained DANN."""
    return accuracies_on(model, *domains(seed))
