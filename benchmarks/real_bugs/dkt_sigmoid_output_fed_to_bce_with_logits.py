"""A DKT model that ends in a sigmoid and is trained with BCEWithLogitsLoss, which applies
its own: the loss sees sigmoid(sigmoid(z)), a "probability" that can only move between
0.5 and 0.73. A wrong answer can never be predicted below 0.5, so the loss stays high and
its gradient is squeezed by two sigmoid slopes; the loss still falls a little, predictions
still rank students somewhat, and nothing errors - the model just learns much less of the
students' histories than it could.

Reported: "An error in the implementation of DKT!!" -
https://github.com/bigdata-ustc/EduKTM/issues/15 ("the loss function is BCEWithLogitLoss(),
but there is already a sigmoid() at the end of forward()"; replacing it with BCELoss raised
the AUC on ASSISTments 2009 "from ~0.75 to ~0.80"; fixed in v0.0.9). Here DKT (a GRU over
(skill, correct) interaction ids, one output per skill, benchmarks/real_bugs/_kt146.py)
on synthetic students (12 skills, 40 attempts, 1,200 training and 400 held-out students),
Adam, batch 64. Fix: BCELoss on the sigmoid outputs (the model unchanged).

Measured (held-out AUC of the next answer over real steps): seed 0: 0.746 with the bug,
0.763 fixed; seeds + 1000: 0.759 vs 0.777.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._kt146 import (DKT, cohorts, dkt_held_out_auc, interactions,
                                         next_logits, student_batches)

TITLE = "An error in the implementation of DKT!!"
LINK = "https://github.com/bigdata-ustc/EduKTM/issues/15"
EXPECTED = ("DOUBLE_SIGMOID",)
STEPS = 150


class SigmoidDKT(DKT):
    """DKT whose forward returns probabilities."""

    def forward(self, ids):
        return torch.sigmoid(super().forward(ids))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, test = cohorts(seed=0)
    skills, correct, lengths = train
    ids = interactions(skills, correct, lengths)
    model = SigmoidDKT()
    # BUG when not fixed: the logits loss applies a second sigmoid to the probabilities
    loss_fn = nn.BCELoss() if fixed else nn.BCEWithLogitsLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for pick in student_batches(len(ids), steps, seed=0):
            optimizer.zero_grad()
            probs = next_logits(model(ids[pick]), skills[pick])     # (B, T - 1)
            loss = loss_fn(probs, correct[pick, 1:].float())
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_auc = dkt_held_out_auc(model, test)
    return mon
