"""A One-Class Neural Network (OC-NN, Chalapathy et al. 2018) whose weight penalty is
computed from COPIES of the weights: the objective
0.5 ||w|| + 0.5 ||V|| + mean(relu(r - <w, g(Vx)>)) / nu - r reads w and V as constants,
so no gradient comes from the penalty, and what is left - the quantile term minus r - is
unbounded below: scaling the weights up raises every score and r together, and the loss
keeps falling as the network grows. The "training" succeeds by its own measure (the loss
goes down every epoch); the score it learns no longer orders normal points above
anomalies, and the sigmoid hidden layer saturates.

Reported: "fix: make the OC-NN objective bounded below so training converges" -
https://github.com/danielenricocahall/One-Class-NeuralNetwork/pull/22 (the maintainer found
three bugs behind the loss that never converged and the issue #12 report that all points
got the same score after long training: the penalty's weights were captured with
``layer.get_weights()``, NumPy copies, so autodiff saw constants; the norms were unsquared,
so even a live penalty grew only linearly; and the Dense layers had biases, which shift the
score and r together. Fixed by reading the live kernels, squaring the norms as in eq. 4 of
the paper, and dropping the biases). Here: OC-NN on the 8x8 digits with 0 the normal
class, 64 -> 32 sigmoid -> 1, r a learned parameter, nu = 0.1, Adam. Fix: the PR's three
changes.

Measured (800 Adam steps, batch 32, 118 normal training images; 60 held-out normals, 240
held-out anomalies; the anomaly score is r - score): held-out AUROC 0.31 for the bug
against 0.92 for the fixed twin at seed 0, hidden weight norm 3.4 against 0.02; seeds
shifted by 1000, AUROC 0.65 against 0.81.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._anom181 import auroc, index_batches, one_class_digits

TITLE = "fix: make the OC-NN objective bounded below so training converges"
LINK = "https://github.com/danielenricocahall/One-Class-NeuralNetwork/pull/22"
EXPECTED = ("LOSS_TERM_WITHOUT_GRADIENT", "LOSS_UNBOUNDED_BELOW")
STEPS = 800
NU = 0.1            # the share of training points allowed below r
HIDDEN = 32
NORMAL = 0


class OCNN(nn.Module):
    """score(x) = <w, sigmoid(V x)>, with the margin r learned alongside."""

    def __init__(self, bias):
        super().__init__()
        self.V = nn.Linear(64, HIDDEN, bias=bias)
        self.w = nn.Linear(HIDDEN, 1, bias=bias)
        self.r = nn.Parameter(torch.tensor(0.1))

    def forward(self, x):
        return self.w(torch.sigmoid(self.V(x))).squeeze(1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    normals, _, test_x, is_anomaly = one_class_digits(normal=NORMAL, seed=0)
    model = OCNN(bias=not fixed)            # the fix drops the biases too
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(normals), steps, seed=0):
            score = model(normals[index])
            if fixed:   # the live weights, squared norms (eq. 4 of the paper)
                penalty = 0.5 * model.w.weight.pow(2).sum() + 0.5 * model.V.weight.pow(2).sum()
            else:       # BUG: copies of the weights (graph constants), unsquared norms
                w = model.w.weight.detach().clone()
                V = model.V.weight.detach().clone()
                penalty = 0.5 * w.norm() + 0.5 * V.norm()
            loss = penalty + torch.relu(model.r - score).mean() / NU - model.r
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        scores = model.r - model(test_x)        # above zero: outside, anomalous
    mon.held_out_auroc = auroc(scores, is_anomaly)
    mon.distinct_scores = len(torch.unique(scores))
    mon.weight_norm = model.V.weight.norm().item()
    return mon
