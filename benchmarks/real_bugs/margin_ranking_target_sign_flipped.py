"""A scorer trained with ``MarginRankingLoss`` whose target says the wrong input should
rank higher. ``margin_ranking_loss(a, b, y)`` is ``max(0, -y * (a - b) + margin)``: y = 1
asks for a > b, y = -1 for b > a. Passing the true fact's score as ``a``, the corrupted
one's as ``b``, and y = -1 trains the model to prefer the corrupted facts: the loss falls
normally while the ranking it learns is the reverse of the task's.

Reported: "Max margin loss function for ER-MLP seems wrong" -
https://github.com/SmartDataAnalytics/Knowledge-Graph-Analysis-Programming-Exercises/issues/1
(``target = [-1, -1, ..., -1], i.e. y_neg should be higher than y_pos``; the reporter:
"it would learn to rank y_neg higher, but don't we want the network to rank y_pos higher
than y_neg?"). Here the fact is (digit image, label): an MLP gives each label a score, the
true label's score is ranked against a random wrong label's. Fix: target +1 (the true
fact's score first and higher).

Why watch misses it: the target's sign is the only thing wrong, and a constant -1 is a
legitimate target (the first input meant to rank lower: ``loss(neg, pos, -1)``). The loss
falls as fast as the fixed twin's, gradients and updates are ordinary, and the run holds
nothing that says which of the two inputs is the true fact's score; only an accuracy on
the task's own labels (0.00 here against the fixed twin's 0.92) shows the reversal.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "Max margin loss function for ER-MLP seems wrong"
LINK = ("https://github.com/SmartDataAnalytics/"
        "Knowledge-Graph-Analysis-Programming-Exercises/issues/1")
EXPECTED = ("RANKING_TARGET_REVERSED",)
STEPS = 200
MARGIN = 1.0


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.MarginRankingLoss(margin=MARGIN)
    corrupt = torch.Generator().manual_seed(1)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            wrong = (yb + torch.randint(1, 10, yb.shape, generator=corrupt)) % 10
            optimizer.zero_grad()
            scores = model(xb)
            true_score = scores.gather(1, yb[:, None]).squeeze(1)
            wrong_score = scores.gather(1, wrong[:, None]).squeeze(1)
            target = torch.ones_like(true_score) if fixed else -torch.ones_like(true_score)
            loss = loss_fn(true_score, wrong_score, target)   # BUG: target -1
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        mon.probe_accuracy = float((model(x).argmax(1) == y).float().mean())
    return mon
