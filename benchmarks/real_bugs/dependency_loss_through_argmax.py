"""A hierarchical classifier's consistency penalty built from ``argmax`` predictions in a
new tensor: the penalty adds to the loss's value but carries no gradient, so the model
trains exactly as it would without it, whatever its weight.

Reported: "Gradient unable to backprop if we use argmax or torch.where" -
https://github.com/Ugenteraan/Deep_Hierarchical_Classification/issues/6 ("argmax is
non-differentiable, thus the gradient wrt to dloss won't be propagated back ... the way the
parameters updated are the same without any value of beta"; the author: "I think you are
right"). Here a two-level classifier on the digits (coarse: 0-4 against 5-9; fine: the
digit) trained on both cross-entropies plus beta x a dependency loss that counts the
samples whose argmax digit disagrees with their argmax coarse class, as the repository
does. Fix: a differentiable penalty, the fine probability mass outside the coarse class the
model predicts.
"""
import torch
import torch.nn.functional as F
from torch import nn

from benchmarks.real_bugs._common import batches, classification

TITLE = "Gradient unable to backprop if we use argmax or torch.where"
LINK = "https://github.com/Ugenteraan/Deep_Hierarchical_Classification/issues/6"
EXPECTED = ("LOSS_TERM_WITHOUT_GRADIENT",)
STEPS = 150
BETA = 1.0
COARSE_OF_FINE = torch.tensor([0, 0, 0, 0, 0, 1, 1, 1, 1, 1])   # digit -> its coarse class


class TwoLevel(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(64, 64), nn.ReLU())
        self.coarse = nn.Linear(64, 2)
        self.fine = nn.Linear(64, 10)

    def forward(self, x):
        h = self.body(x)
        return torch.cat([self.coarse(h), self.fine(h)], dim=1)   # (N, 2 + 10)


def dependency_loss(coarse_logits, fine_logits, fixed):
    if not fixed:    # BUG: argmax and a new tensor: the penalty has no gradient
        disagree = COARSE_OF_FINE[fine_logits.argmax(1)] != coarse_logits.argmax(1)
        return torch.tensor(disagree.float().mean().item())
    coarse_pred = coarse_logits.argmax(1, keepdim=True)
    outside = COARSE_OF_FINE.unsqueeze(0) != coarse_pred             # (N, 10)
    return (F.softmax(fine_logits, 1) * outside).sum(1).mean()


def hierarchical_loss(fixed):
    def loss_fn(scores, fine_targets):
        coarse_logits, fine_logits = scores[:, :2], scores[:, 2:]
        coarse_targets = COARSE_OF_FINE[fine_targets]
        return (F.cross_entropy(coarse_logits, coarse_targets) +
                F.cross_entropy(fine_logits, fine_targets) +
                BETA * dependency_loss(coarse_logits, fine_logits, fixed))
    return loss_fn


def run(fixed=False, steps=STEPS, **watch):
    import nndebug as nd
    torch.manual_seed(0)
    x, y = classification()
    model = TwoLevel()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = hierarchical_loss(fixed)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
