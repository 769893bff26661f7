"""Knowledge-tracing sequences built by grouping a log by student without putting each
student's attempts back in time order: the rows come out in the log's storage order
(here sorted by skill, as an export keyed on problem id leaves them), so a student's
history reads as all attempts on skill 0, then all on skill 1, and so on. A DKT model
trains on it happily - the order still carries some signal, the loss falls - but what it
learns is how answers follow one another in a skill-sorted list, not how a student's
knowledge moves in time, and it is scored and used on histories in the order they
happened.

Reported: "the processing of the dataset" - https://github.com/THUwangcy/HawkesKT/issues/5
(ASSISTments 2009-10's ``order_id`` is chronological, but the preprocessing grouped by
``user_id`` without sorting on it, which "will destroy the chronological order of each
user's answer"; after sorting each student's problems by ``order_id`` the reporter's
results changed). Here DKT (a GRU over (skill, correct) ids,
benchmarks/real_bugs/_kt146.py) on synthetic students whose chance of a right answer
grows with practice. Fix: each student's attempts in time order (the order they were
drawn), as the held-out students are.

Measured (500 Adam steps, batch 64, 1,200 training and 400 held-out students, 40 attempts
each; held-out AUC of the next answer in time order): seed 0: 0.700 for the bug against
0.757 for the fixed twin; seeds shifted by 1000: 0.724 against 0.773.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._kt146 import (DKT, cohorts, dkt_held_out_auc, interactions,
                                         next_logits, student_batches)

TITLE = "the processing of the dataset"
LINK = "https://github.com/THUwangcy/HawkesKT/issues/5"
EXPECTED = ("SEQUENCE_NOT_CHRONOLOGICAL",)
STEPS = 500


def storage_order(skills, correct):
    """Each student's attempts reordered by skill (stable: time order within a skill)."""
    order = (skills * 1000 + torch.arange(skills.shape[1])[None, :]).argsort(1)
    return skills.gather(1, order), correct.gather(1, order)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, test = cohorts(seed=0)
    skills, correct, lengths = train
    if not fixed:       # BUG: grouped by student, never sorted back into time order
        skills, correct = storage_order(skills, correct)
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
