"""A multi-class focal loss copied from a small GitHub repo builds its focal factor from
the LOG-probabilities, ``pt = label_onehot * log_p``, and returns the mean of
``-alpha * (1 - pt) ** gamma * log_p`` over every entry of the (batch, classes) table. So
the factor is (1 - log p_t) ** gamma, largest for the hardest rows (the opposite of focal
down-weighting), and every OTHER class's ``-log p_j`` stays in the loss with weight 1: the
loss is lowest when the wrong classes keep a large share of the probability, and the
classifier ends unsure of everything, its true-class probability capped near one half.

Reported: "Potential BUG" - https://github.com/HeyLynne/FocalLoss_for_multiclass/issues/3
("The following line is incorrect: pt = label_onehot * log_p it should be: pt =
label_onehot * p"; a second user: "When I use log probability I get Nan loss, but when I
use probability ... my loss looks normal"; the author: "Thanks. Will fix on it"). Here the
ten digit classes, an MLP returning (batch, classes) logits, gamma 2, alpha 1, Adam. Fix:
the focal loss at the label, ``-(1 - p_t) ** gamma * log p_t`` averaged over the rows.

Measured (300 steps, batch 64, 297 held-out digits; held-out mean negative log-likelihood
of the true class, and accuracy): seed 0, NLL 1.188 for the bug against 0.625 for the fixed
twin; seeds shifted by 1000, 1.168 against 0.610. The ranking survives (accuracy 0.879 against
0.869; 0.875 against 0.879), the probabilities do not.
"""
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "Potential BUG"
LINK = "https://github.com/HeyLynne/FocalLoss_for_multiclass/issues/3"
EXPECTED = ("LOSS_MEAN_OVER_CLASSES",)
STEPS = 300
HELD_OUT = 297


class FocalLoss(nn.Module):
    def __init__(self, gamma=2, alpha=1, fixed=False):
        super().__init__()
        self.gamma, self.alpha, self.fixed = gamma, alpha, fixed

    def forward(self, logits, labels):
        log_p = F.log_softmax(logits, dim=1)
        if self.fixed:
            log_pt = log_p.gather(1, labels[:, None])[:, 0]
            return (-self.alpha * (1 - log_pt.exp()) ** self.gamma * log_pt).mean()
        label_onehot = torch.zeros_like(log_p).scatter_(1, labels[:, None], 1)
        pt = label_onehot * log_p                       # BUG: log-probabilities, not p
        sub_pt = 1 - pt
        fl = -self.alpha * sub_pt ** self.gamma * log_p  # every class's log_p stays in
        return fl.mean()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    train_x, train_y = x[:-HELD_OUT], y[:-HELD_OUT]
    held_x, held_y = x[-HELD_OUT:], y[-HELD_OUT:]
    model = mlp()
    criterion = FocalLoss(fixed=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(train_x, train_y, steps):
            loss = criterion(model(xb), yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        logits = model(held_x)
        mon.held_out_nll = round(F.cross_entropy(logits, held_y).item(), 3)
        mon.held_out_accuracy = round((logits.argmax(1) == held_y).float().mean().item(), 3)
    return mon
