"""A DKT model trained on a log where every attempt at a problem tagged with two skills
appears twice in a row - once per skill, with the same answer - as ASSISTments 2009-10's
skill-builder file stores it. Each duplicate's "next answer" is the answer the model has
just read, so a large share of the training targets can be copied from the input: the
model learns to lean on the last answer far more than a student's history warrants, its
training and (equally duplicated) validation AUC look excellent, and nothing errors. On
histories where each attempt appears once, the real next attempt is predicted worse.

Reported: "test accuary is below the paper's result" -
https://github.com/dxywill/deepknowledgetracing/issues/2 (the maintainer: the
ASSISTments 09-10 data the DKT paper used "has duplication which highly inflated the
performance of this model"; Xiong et al. removed the duplicated records and found about
0.80 AUC). Here DKT (a GRU over (skill, correct) ids,
benchmarks/real_bugs/_kt146.py) on synthetic students; 40% of attempts carry a second
skill tag and, in the bug run, appear a second time under it. Fix: one row per attempt
(its first skill tag), as the held-out histories are.

Measured (500 Adam steps, batch 64, 1,200 training and 400 held-out students; held-out
AUC of the next attempt on histories without duplicates): seed 0: 0.693 for the bug
against 0.757 for the fixed twin; seeds shifted by 1000: 0.712 against 0.773.
"""
import numpy as np
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._kt146 import (DKT, LENGTH, SKILLS, cohorts, dkt_held_out_auc,
                                         interactions, next_logits, student_batches)

TITLE = "test accuary is below the paper's result"
LINK = "https://github.com/dxywill/deepknowledgetracing/issues/2"
EXPECTED = ("TARGETS_IN_INPUTS", "DUPLICATE_STEPS_IN_SEQUENCE")
STEPS = 500
TWO_SKILLS = 0.4


def duplicated(skills, correct, rng):
    """Each attempt tagged with a second skill (a share TWO_SKILLS) written again under it,
    cut back to LENGTH steps."""
    rows_s, rows_c = [], []
    for s_row, c_row in zip(skills.tolist(), correct.tolist()):
        out_s, out_c = [], []
        for s, c in zip(s_row, c_row):
            out_s.append(s)
            out_c.append(c)
            if rng.random() < TWO_SKILLS:
                out_s.append((s + 1 + int(rng.integers(SKILLS - 1))) % SKILLS)
                out_c.append(c)
        rows_s.append(out_s[:LENGTH])
        rows_c.append(out_c[:LENGTH])
    return torch.tensor(rows_s), torch.tensor(rows_c)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, test = cohorts(seed=0)
    skills, correct, lengths = train
    if not fixed:       # BUG: a two-skill attempt is one row per skill tag
        skills, correct = duplicated(skills, correct, np.random.default_rng(0))
    ids = interactions(skills, correct, lengths)
    model = DKT()
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for pick in student_batches(len(ids), steps, seed=0):
            optimizer.zero_grad()
            logits = next_logits(model(ids[pick]), skills[pick])
            loss = F.binary_cross_entropy_with_logits(logits, correct[pick, 1:].float())
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_auc = dkt_held_out_auc(model, test)
    return mon
