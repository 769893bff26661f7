"""A focal loss that turns a float ``alpha`` into the class table ``[alpha, 1 - alpha]`` and
gathers it by the target: class 0 gets ``alpha`` and class 1 gets ``1 - alpha``, the reverse
of the paper's convention (``alpha`` for class 1, the rare foreground). A user who follows
the paper and sets alpha to the share of the negatives (0.99 for 1% positives) to lift the
rare class gives the positives 0.01 and the negatives 0.99: the weighting meant to balance
the classes multiplies the imbalance by 99 instead. Training is smooth, the loss small, and
the model simply stops predicting the rare class.

Reported: "alpha value is not consistent with paper?" -
https://github.com/clcarwin/focal_loss_pytorch/issues/10 (the code builds
``torch.Tensor([alpha, 1 - alpha])`` and gathers it by the target, so a positive is weighted
by ``1 - alpha`` where the paper has ``-alpha (1 - p)^gamma log p`` for y = 1: "the alpha
should be set in an opposite way?" - the issue is open; following the paper means the
table ``[1 - alpha, alpha]``, or passing the per-class list explicitly). Here: one digit (8) against the nine others, 12 positive
rows among 1,152 (benchmarks/real_bugs/_imb186.py), a two-logit MLP, Adam, the report's
loss with gamma 2 and alpha 0.99. Fix: the table ``[1 - alpha, alpha]``.

Measured (400 steps, batches of 64; on 535 held-out digits, 52 of them positives, at the
argmax): seed 0, recall of the positives 0.00 for the bug against 0.69 for the fixed twin
(F1 0.00 against 0.71); seeds shifted by 1000, recall 0.00 against 0.54 (F1 0.00
against 0.58).
"""
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._common import index_batches, mlp
from benchmarks.real_bugs._imb186 import rare_binary, two_class_scores

TITLE = "alpha value is not consistent with paper?"
LINK = "https://github.com/clcarwin/focal_loss_pytorch/issues/10"
EXPECTED = ("CLASS_WEIGHTS_REVERSED", "RARE_CLASS_NEVER_PREDICTED")
STEPS = 400
GAMMA = 2.0
ALPHA = 0.99        # the paper's alpha for the rare class 1: one minus the positives' share
BATCH = 64


def focal_loss(logits, target, table, gamma):
    log_p = F.log_softmax(logits, dim=1).gather(1, target.view(-1, 1)).squeeze(1)
    at = table.gather(0, target)
    return (-at * (1 - log_p.exp()) ** gamma * log_p).mean()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_test, y_test = rare_binary(seed=0)
    target = y.long()
    if fixed:
        table = torch.tensor([1 - ALPHA, ALPHA])     # alpha for class 1, as in the paper
    else:
        table = torch.tensor([ALPHA, 1 - ALPHA])     # BUG: alpha lands on class 0
    model = mlp(outputs=2)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(x), steps, BATCH, seed=0):
            loss = focal_loss(model(x[index]), target[index], table, GAMMA)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    recall, f1, balanced = two_class_scores(model, x_test, y_test)
    mon.held_out_recall, mon.held_out_f1, mon.held_out_balanced_accuracy = recall, f1, balanced
    return mon
