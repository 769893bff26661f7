"""A focal loss written as if ``F.cross_entropy`` returned the probability of the true class:
``cross_entropy = F.cross_entropy(output, target)`` (the batch MEAN of -log p_t), then
``-(1 - cross_entropy) ** gamma * torch.log(cross_entropy)``. What it treats as p_t is the
mean cross-entropy itself, so the "focal loss" is a function of one number per batch with
its only zero at cross-entropy = 1, and it is NEGATIVE (and still falling) for any
cross-entropy above 1. Ten classes start at ln 10 = 2.3: descending this loss drives the
cross-entropy UP, away from the labels, and the printed loss goes down all the while.

Reported: "I think focal_loss.py is wromg" - https://github.com/c0nn3r/RetinaNet/issues/8
(the repository's FocalLoss takes ``torch.log(F.cross_entropy(output, target))`` as log p_t;
"The cross_entropy in Pytorch is logSoftmax + NLLloss, not a normal softmax", so p_t should
be ``torch.exp(-F.cross_entropy(...))``, per sample). Here: the long-tailed digits
(benchmarks/real_bugs/_imb186.py: digits 0-4 with about 125 training rows each, 5-9 with 4),
an MLP, Adam, the repository's FocalLoss (focusing 2, balance 0.25), batches of 32. Fix:
per-sample log p_t = -cross_entropy(reduction="none"), p_t = exp(log p_t), and
``-balance * (1 - p_t) ** gamma * log p_t`` averaged.

Measured (300 steps; on 535 held-out digits at their natural shares: accuracy, and the
balanced accuracy - the mean recall of the ten digits): seed 0, accuracy 0.10 for the bug
(one digit predicted for everything) against 0.74 for the fixed twin (balanced 0.10 against
0.74); seeds shifted by 1000, 0.10 against 0.67 (balanced 0.10 against 0.67).
"""
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._common import index_batches, mlp
from benchmarks.real_bugs._imb186 import balanced_accuracy, long_tail

TITLE = "I think focal_loss.py is wromg"
LINK = "https://github.com/c0nn3r/RetinaNet/issues/8"
EXPECTED = ("LOSS_UNBOUNDED_BELOW",)
STEPS = 300
BATCH = 32


class FocalLoss(torch.nn.Module):
    def __init__(self, focusing_param=2, balance_param=0.25, fixed=False):
        super().__init__()
        self.focusing_param, self.balance_param, self.fixed = \
            focusing_param, balance_param, fixed

    def forward(self, output, target):
        if self.fixed:
            logpt = -F.cross_entropy(output, target, reduction="none")
            pt = logpt.exp()
            return (-self.balance_param * (1 - pt) ** self.focusing_param * logpt).mean()
        cross_entropy = F.cross_entropy(output, target)           # BUG: the batch mean ...
        cross_entropy_log = torch.log(cross_entropy)              # ... taken as p_t
        focal_loss = -((1 - cross_entropy) ** self.focusing_param) * cross_entropy_log
        return self.balance_param * focal_loss


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_test, y_test = long_tail(seed=0)
    criterion = FocalLoss(fixed=fixed)
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(x), steps, BATCH, seed=0):
            loss = criterion(model(x[index]), y[index])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        mon.held_out_accuracy = float((model(x_test).argmax(1) == y_test).float().mean())
    mon.held_out_balanced_accuracy = balanced_accuracy(model, x_test, y_test)
    return mon
