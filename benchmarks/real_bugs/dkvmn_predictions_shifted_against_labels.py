"""A read-before-write knowledge tracer (DKVMN style) trained with the DKT habit of
shifting: the model already predicts the CURRENT question's answer - at step t it reads
its memory of attempts 0..t-1 with question t - yet the loss pairs predictions[:, :-1]
with labels[:, 1:], so the prediction made for question t is scored against the answer to
question t + 1. The loss falls (the next answer is correlated with the current one, more
so on the same skill), nothing errors, and the model learns to predict one step further
ahead than it is asked to, on the wrong question whenever the skill changes.

Reported: "Fix DKVMN based loss, labels-predictions mismatch" -
https://github.com/HFUT-LEC/EduStudio/pull/16 ("DKVMN & deepIRT implementations don't need
shifting predictions or true labels"; merged). Here a small read-before-write tracer (a
GRU over the interactions shifted right behind a start id, its state read together with
the current question's embedding) on the synthetic students of batch 146
(benchmarks/real_bugs/_kt146.py: 12 skills, 40 attempts, 1,200 training and 400 held-out
students), Adam, batch 64. Fix: the loss on predictions and labels of the same steps.

Measured (held-out AUC of each answer from its own step's prediction): seed 0: 0.734 with
the bug, 0.747 fixed; seeds + 1000: 0.751 vs 0.767.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._kt146 import (DIM, HIDDEN, LENGTH, SKILLS, auc, cohorts,
                                         interactions, student_batches)

TITLE = "Fix DKVMN based loss, labels-predictions mismatch"
LINK = "https://github.com/HFUT-LEC/EduStudio/pull/16"
EXPECTED = ("LABELS_MISALIGNED",)
STEPS = 150
START = 1 + 2 * SKILLS


class ReadBeforeWrite(nn.Module):
    """Predicts the answer to question t from the attempts before t and question t."""

    def __init__(self):
        super().__init__()
        self.interaction = nn.Embedding(2 + 2 * SKILLS, DIM, padding_idx=0)
        self.question = nn.Embedding(SKILLS, DIM)
        self.memory = nn.GRU(DIM, HIDDEN, batch_first=True)
        self.read = nn.Sequential(nn.Linear(HIDDEN + DIM, HIDDEN), nn.Tanh(),
                                  nn.Linear(HIDDEN, 1))

    def forward(self, ids, questions):
        before = torch.cat([torch.full_like(ids[:, :1], START), ids[:, :-1]], 1)
        state = self.memory(self.interaction(before))[0]
        return self.read(torch.cat([state, self.question(questions)], -1)).squeeze(-1)


def held_out_auc(model, test):
    skills, correct, lengths = test
    model.eval()
    with torch.no_grad():
        scores = model(interactions(skills, correct, lengths), skills)
    real = torch.arange(LENGTH)[None, :] < lengths[:, None]
    return auc(scores[real], correct[real])


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, test = cohorts(seed=0)
    skills, correct, lengths = train
    ids = interactions(skills, correct, lengths)
    model = ReadBeforeWrite()
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for pick in student_batches(len(ids), steps, seed=0):
            optimizer.zero_grad()
            logits = model(ids[pick], skills[pick])
            labels = correct[pick].float()
            if fixed:
                loss = F.binary_cross_entropy_with_logits(logits, labels)
            else:        # BUG: the DKT shift on a model that predicts the current step
                loss = F.binary_cross_entropy_with_logits(logits[:, :-1], labels[:, 1:])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_auc = held_out_auc(model, test)
    return mon
