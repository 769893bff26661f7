"""A deep ensemble whose training loop trains the same member every time: the loop over the
members picks the network to fit with a fixed index (the last one created) instead of the
loop's own index, so that member is trained once per pass of the loop - five times over -
and the other four stay at their random initialisation. The ensemble's averaged prediction
is then one over-trained network mixed with four random guesses: its probabilities are
squashed towards uniform, its NLL and calibration are far worse than a single network's,
and the members' disagreement (the ensemble's uncertainty) is noise. No error; each pass's
loss falls, since the member it trains does learn.

Reported: "Retrain last model, ignore others?" -
https://github.com/cmb-chula/MHCSeqNet/issues/4 (the reporter found that each pass of the
ensemble's training loop retrained the last model and left the others untrained; the
maintainer confirmed it and fixed it in the next commit). Here an ensemble of five digits
MLPs, kept in one ``nn.ModuleList`` with one Adam optimizer, trained member by member and
scored on 797 test rows by the mean of the members' softmax outputs.
Fix: train ``members[i]`` in the i-th pass, not ``members[-1]``.

Measured (5 members x 200 steps, seed 0): the bug's ensemble has test NLL 1.331 and ECE
0.688, the twin's 0.196 and 0.060 (accuracy 0.961 against 0.942: the bug's one member was
trained five times as long, and the random members rarely outvote it).
"""
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._calibration_digits import expected_calibration_error, split
from benchmarks.real_bugs._common import batches, mlp

TITLE = "Retrain last model, ignore others?"
LINK = "https://github.com/cmb-chula/MHCSeqNet/issues/4"
EXPECTED = ("NO_GRADIENT",)
MEMBERS = 5
STEPS = 1000         # all passes together: 200 steps per member


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (x_train, y_train), _, (x_test, y_test) = split(seed=0)
    members = nn.ModuleList(mlp() for _ in range(MEMBERS))
    optimizer = torch.optim.Adam(members.parameters(), lr=3e-3)
    per_member = steps // MEMBERS
    with nd.watch(members, optimizer, **watch) as mon:
        for i in range(MEMBERS):
            member = members[i] if fixed else members[-1]    # BUG: always the last one
            for xb, yb in batches(x_train, y_train, per_member, seed=i):
                optimizer.zero_grad()
                loss = F.cross_entropy(member(xb), yb)
                loss.backward()
                optimizer.step()
                mon.step(loss)
    with torch.no_grad():
        probs = torch.stack([F.softmax(m(x_test), 1) for m in members]).mean(0)
    mon.extra = {"test_nll": round(float(F.nll_loss(probs.clamp_min(1e-12).log(), y_test)), 3),
                 "test_ece": round(expected_calibration_error(probs, y_test), 3),
                 "test_accuracy": round(float((probs.argmax(1) == y_test).float().mean()), 3)}
    return mon
