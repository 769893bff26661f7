"""A binary cross-entropy written by hand for an imbalanced task takes class weights as an
argument - the training script computes them from the label counts and passes them in -
but the formula, ``-(t * log(p + eps) + (1 - t) * log(1 - p + eps))``, never reads them.
Nothing errors and the loss falls; the rare positives simply count as little as their
numbers, and the classifier says "negative" for most of them.

Reported: "Are class weights computed in the loss function?" -
https://github.com/MeioJane/CHR/issues/2 ("the loss of the netwok is a self implemented
binary cross entropy loss parameterized by class weights ... I didn't see the weights take
part in any computation ``-(target*torch.log(input+eps)+(1-target)*torch.log(1-input+
eps))``"; the author: "The code have been updated. The class weights loss is in main.py").
Here, scaled down, "is it a 9?" on noisy digits, the training set keeping a quarter of its
9s (about 1 positive in 36), an MLP with a sigmoid output, Adam. Fix: weigh each row by its
class's weight inside the formula.

Measured (300 steps, batch 64, 500 held-out digits; balanced accuracy at p > 0.5): seed 0,
0.500 for the bug against 0.864 for the fixed twin; seeds shifted by 1000, 0.507 against
0.871.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, mlp
from benchmarks.real_bugs._custom_losses import balanced_accuracy, imbalanced_digits

TITLE = "Are class weights computed in the loss function?"
LINK = "https://github.com/MeioJane/CHR/issues/2"
EXPECTED = ("RARE_POSITIVES_NEVER_PREDICTED",)
STEPS = 300
EPS = 1e-6


class WeightedBCE(nn.Module):
    def __init__(self, weights, fixed=False):
        super().__init__()
        self.weights, self.fixed = weights, fixed          # (negative weight, positive weight)

    def forward(self, probability, target):
        if self.fixed:
            negative, positive = self.weights
            return -(positive * target * torch.log(probability + EPS)
                     + negative * (1 - target) * torch.log(1 - probability + EPS)).mean()
        # BUG: self.weights is never read
        return -(target * torch.log(probability + EPS)
                 + (1 - target) * torch.log(1 - probability + EPS)).mean()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, digit, held_x, held_digit = imbalanced_digits(rare=(9,), keep=0.25, noise=0.3, seed=0)
    y, held_y = (digit == 9).float(), (held_digit == 9).long()
    positives = y.mean()
    weights = torch.stack([0.5 / (1 - positives), 0.5 / positives])   # from the label counts
    criterion = WeightedBCE(weights, fixed=fixed)
    model = nn.Sequential(mlp(outputs=1), nn.Sigmoid())
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            loss = criterion(model(xb)[:, 0], yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        predicted = (model(held_x)[:, 0] > 0.5).long()
        mon.held_out_balanced_accuracy = balanced_accuracy(predicted, held_y, 2)
    return mon
