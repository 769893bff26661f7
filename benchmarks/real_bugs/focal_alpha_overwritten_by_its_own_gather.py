"""A multi-class focal loss whose per-class alpha is looked up with
``self.alpha = self.alpha.gather(0, labels)``: the lookup OVERWRITES the class table with the
first batch's per-sample weights. From the second call on, "alpha of class c" is the weight
of whichever sample sat at position c of the previous batch - on a long-tailed set almost
always a frequent class - so the inverse-frequency weights the rare classes were given are
gone after one step, and each later call re-shuffles them again. Nothing errors (a batch
is longer than the class count, so every index stays in range); the loss falls as usual.

Reported: "代码bug" (code bug) - https://github.com/yatengLG/Focal-Loss-Pytorch/issues/5
(``self.alpha = self.alpha.gather(0, labels.view(-1))`` changes ``self.alpha`` after the
first batch, so the gathered weights are wrong from then on, and a batch larger than the
last one raises "Invalid index in gather"; the fix is a local ``alpha =
self.alpha.gather(...)`` that leaves the table alone; the same bug is issue #9 and pull
request #16 there). Here: the long-tailed digits (benchmarks/real_bugs/_imb186.py: digits
0-4 with about 125 training rows each, 5-9 with 4), an MLP, Adam, focal loss gamma 2 with
alpha[c] = inverse class frequency (normalised to sum 1), batches of 32. Fix: the local
lookup.

Measured (400 steps; balanced accuracy, the mean recall of the ten digits, on 535
held-out digits at their natural shares, and the mean recall of the rare digits 5-9):
seed 0, balanced accuracy 0.79 for the bug against 0.86 for the fixed twin (rare digits
0.59 against 0.78); seeds shifted by 1000, 0.70 against 0.83 (rare 0.41 against 0.67).
"""
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._common import index_batches, mlp
from benchmarks.real_bugs._imb186 import balanced_accuracy, inverse_frequency, long_tail

TITLE = "代码bug"
LINK = "https://github.com/yatengLG/Focal-Loss-Pytorch/issues/5"
EXPECTED = ("CLASS_WEIGHTS_OVERWRITTEN_IN_LOSS",)
STEPS = 400
GAMMA = 2.0
BATCH = 32


class FocalLoss(torch.nn.Module):
    def __init__(self, alpha, gamma, fixed):
        super().__init__()
        self.alpha, self.gamma, self.fixed = alpha, gamma, fixed

    def forward(self, logits, labels):
        log_p = F.log_softmax(logits, dim=1).gather(1, labels.view(-1, 1)).squeeze(1)
        p = log_p.exp()
        if self.fixed:
            alpha = self.alpha.gather(0, labels.view(-1))          # a local lookup
        else:
            self.alpha = self.alpha.gather(0, labels.view(-1))     # BUG: the table replaced
            alpha = self.alpha
        return (-alpha * (1 - p) ** self.gamma * log_p).mean()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_test, y_test = long_tail(seed=0)
    weights = inverse_frequency(y, 10)
    criterion = FocalLoss(weights / weights.sum(), GAMMA, fixed)
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
    mon.held_out_balanced_accuracy = balanced_accuracy(model, x_test, y_test)
    mon.held_out_rare_recall = balanced_accuracy(model, x_test, y_test, among=range(5, 10))
    return mon
