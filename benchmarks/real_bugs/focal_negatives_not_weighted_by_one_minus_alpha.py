"""A binary focal loss that multiplies the positives' terms by ``alpha`` and leaves the
negatives' terms at 1: ``fl = torch.where(target == 1, fl * alpha, fl)`` instead of
``fl * (1 - alpha)`` for the negatives. The paper's alpha balances the two classes (alpha
for class 1, 1 - alpha for class 0); here it only scales the positives. A user who sets
alpha to the negatives' share (0.99 for 1% positives) to lift the rare class gets weights
0.99 and 1 - no balancing at all - and the rare positives stay below the 0.5 threshold.

Reported: "Shouldn't there be a `(1-alpha)` pre-factor for the negatives?" -
https://github.com/mathiaszinnen/focal_loss_torch/issues/2 ("I believe `fl =
torch.where(target == 1, fl * self.alpha, fl)` should be `fl = torch.where(target == 1, fl
* self.alpha, fl * (1 - self.alpha))`", quoting section 3.1 of the paper; the maintainer
"changed the code accordingly"). Here: one digit (8) against the nine others with 12
positive training rows among about 1,150 (benchmarks/real_bugs/_imb186.py), an MLP with
one logit, Adam, focal loss gamma 2 with alpha 0.99, batches of 64. Fix: the negatives'
terms times 1 - alpha.

Measured (300 steps; on 535 held-out digits, 52 of them positives, at p > 0.5): seed 0,
recall of the positives 0.00 for the bug against 0.83 for the fixed twin (balanced accuracy
0.50 against 0.89); seeds shifted by 1000, 0.00 against 0.56 (balanced 0.50 against 0.75).
"""
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._common import index_batches, mlp
from benchmarks.real_bugs._imb186 import binary_scores, rare_binary

TITLE = "Shouldn't there be a `(1-alpha)` pre-factor for the negatives?"
LINK = "https://github.com/mathiaszinnen/focal_loss_torch/issues/2"
EXPECTED = ("RARE_POSITIVES_NEVER_PREDICTED",)
STEPS = 300
ALPHA = 0.99            # the negatives' share: the weight meant for the rare positives
GAMMA = 2.0
BATCH = 64


def focal_loss(logits, target, alpha, gamma, fixed):
    bce = F.binary_cross_entropy_with_logits(logits, target, reduction="none")
    p_t = torch.exp(-bce)
    fl = (1 - p_t) ** gamma * bce
    if fixed:
        fl = torch.where(target == 1, fl * alpha, fl * (1 - alpha))
    else:
        fl = torch.where(target == 1, fl * alpha, fl)       # BUG: negatives left at 1
    return fl.mean()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_test, y_test = rare_binary(seed=0)
    model = mlp(outputs=1)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(x), steps, BATCH, seed=0):
            loss = focal_loss(model(x[index]).squeeze(-1), y[index], ALPHA, GAMMA, fixed)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    recall, f1, balanced = binary_scores(model, x_test, y_test)
    mon.held_out_recall, mon.held_out_f1, mon.held_out_balanced_accuracy = recall, f1, balanced
    return mon
