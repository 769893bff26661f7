"""A self-attentive knowledge tracer whose attention weights go through softmax twice:
the causal mask sets the future scores to -1e9, the first softmax turns them into weights
of exactly 0, and a second softmax over those weights gives every masked position
exp(0) = 1 against at most e for the visible ones - the future interactions, the answer
each query must predict among them, are read again with a sizeable share of the weight,
and the weights over the past are flattened toward uniform. Nothing errors and the
training loss falls; the model learns to use the later answers it can see, which are
missing once it is deployed.

Reported: "Data Leakage" - https://github.com/zyy-2001/DisKT/issues/2 ("Performing softmax
twice will cause the attention matrix to be redistributed, making the mask invalid"; the
reporter's fix applies one softmax to the masked scores and works on those weights).
Here a one-layer SAKT-style tracer (benchmarks/real_bugs/_kt321.py) on the synthetic
students of batch 146 (12 skills, 40 attempts, 1,200 training and 400 held-out students),
Adam, batch 64. Fix: one softmax over the masked scores.

Measured (held-out AUC of the next answer, each predicted from the interactions before it
only, as deployed):
seed 0: 0.737 with the bug, 0.769 fixed; seeds + 1000: 0.735 vs 0.783.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._kt146 import cohorts, interactions, student_batches
from benchmarks.real_bugs._kt321 import Tracer, prefix_auc

TITLE = "Data Leakage"
LINK = "https://github.com/zyy-2001/DisKT/issues/2"
EXPECTED = ("FUTURE_LEAK",)
STEPS = 300


def attention_softmaxed_twice(scores, future):
    weights = F.softmax(scores.masked_fill(future, -1e9), dim=-1)
    return F.softmax(weights, dim=-1)         # BUG: the masked zeros get weight again


def attention(scores, future):
    return F.softmax(scores.masked_fill(future, -1e9), dim=-1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, test = cohorts(seed=0)
    skills, correct, lengths = train
    ids = interactions(skills, correct, lengths)
    model = Tracer(attention if fixed else attention_softmaxed_twice)
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
