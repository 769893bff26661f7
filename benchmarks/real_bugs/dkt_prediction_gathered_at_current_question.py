"""A DKT training loop that reads each step's prediction at the wrong skill: the labels
are shifted to the NEXT answers (answers[:, 1:]) but the output column is picked with the
CURRENT questions (questions[:, :-1]), so the model is trained to say how the student will
answer whatever comes next in the column of the skill just practised. Where a student
stays on one skill the two agree, so the loss falls and the model learns something; where
the next question is on another skill, the column asked about at deployment - the next
question's own skill - was trained on answers to other skills.

Reported: "DKT 训练脚本可能存在一位错位" (the DKT training script may be off by one) -
https://github.com/karin0018/GenAL/issues/10 (the question ids cut as ques[:, :-1] are
used to gather the predictions while the labels are ans[:, 1:]: "这里的ans和pred的ques似乎
并不符合" - the answers and the predicted questions do not seem to match). Here DKT (a GRU
over (skill, correct) interaction ids, one output per skill, benchmarks/real_bugs/_kt146.py)
on synthetic students (12 skills, 40 attempts, 1,200 training and 400 held-out students;
60% of attempts stay on the previous skill), Adam, batch 64. Fix: gather with the next
questions, questions[:, 1:].

Measured (held-out AUC of the next answer over real steps, read at the next question's
skill as DKT is used): seed 0: 0.736 with the bug, 0.763 fixed; seeds + 1000: 0.745 vs
0.777.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._kt146 import (DKT, cohorts, dkt_held_out_auc, interactions,
                                         student_batches)

TITLE = "DKT 训练脚本可能存在一位错位"
LINK = "https://github.com/karin0018/GenAL/issues/10"
EXPECTED = ("LABELS_MISALIGNED",)
STEPS = 150


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, test = cohorts(seed=0)
    skills, correct, lengths = train
    ids = interactions(skills, correct, lengths)
    model = DKT()
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for pick in student_batches(len(ids), steps, seed=0):
            optimizer.zero_grad()
            logits = model(ids[pick, :-1])                    # (B, T - 1, SKILLS)
            # BUG when not fixed: the column of the question just answered, not the next
            asked = skills[pick, 1:] if fixed else skills[pick, :-1]
            picked = logits.gather(2, asked[:, :, None]).squeeze(2)
            loss = F.binary_cross_entropy_with_logits(picked, correct[pick, 1:].float())
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_auc = dkt_held_out_auc(model, test)
    return mon
