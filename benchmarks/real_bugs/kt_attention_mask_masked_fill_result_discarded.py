"""A self-attentive knowledge tracer (SAKT/AKT style) whose causal mask does nothing: the
hand-written attention calls ``scores.masked_fill(future, -1e9)`` and throws the result
away - masked_fill returns a new tensor, only masked_fill_ changes ``scores`` - so every
query attends to every interaction of the history, including the one right after it,
which holds the answer it is asked to predict. Nothing errors; the training loss falls
far below what an honest tracer reaches, because the model learns to read that answer.
Deployed, the next answer is not there, and the model that leaned on it predicts poorly.

Reported: "AKT Bug" - https://github.com/bigdata-ustc/EduKTM/issues/39 ("The mask_fill
operation on this line should be replaced with mask_fill_, otherwise it will cause data
leakage"; the same line reported again in issue 52 and PR 53, "the masking had no effect,
potentially allowing the model to peek at future responses during training"). Here a
one-layer SAKT-style tracer (benchmarks/real_bugs/_kt321.py) on the synthetic students of
batch 146 (12 skills, 40 attempts, 1,200 training and 400 held-out students), Adam, batch
64. Fix: ``scores = scores.masked_fill(future, -1e9)`` (the result kept).

Measured (held-out AUC of the next answer, each predicted from the interactions before it
only, as deployed):
seed 0: 0.744 with the bug, 0.769 fixed; seeds + 1000: 0.754 vs 0.783.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._kt146 import cohorts, interactions, student_batches
from benchmarks.real_bugs._kt321 import Tracer, prefix_auc

TITLE = "AKT Bug"
LINK = "https://github.com/bigdata-ustc/EduKTM/issues/39"
EXPECTED = ("FUTURE_LEAK",)
STEPS = 300


def attention_discarding_mask(scores, future):
    scores.masked_fill(future, -1e9)          # BUG: the masked copy is thrown away
    return scores.softmax(-1)


def attention(scores, future):
    scores = scores.masked_fill(future, -1e9)
    return scores.softmax(-1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, test = cohorts(seed=0)
    skills, correct, lengths = train
    ids = interactions(skills, correct, lengths)
    model = Tracer(attention if fixed else attention_discarding_mask)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for pick in student_batches(len(ids), steps, seed=0):
            optimizer.zero_grad()
            logits = model(ids[pick, :-1], skills[pick, 1:])
            loss = F.binary_cross_entropy_with_logits(logits, correct[pick, 1:].float())
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_auc = prefix_auc(model, test)
    return mon
