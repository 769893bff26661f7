"""A Cox loss built with a risk-set matrix (R[i, j] = 1 when subject j is still at risk at
subject i's time) multiplies each subject's partial-likelihood term, a 1-D tensor (N,), by
the censoring column as the loader hands it, (N, 1). Broadcasting makes that an (N, N)
matrix whose entry (i, j) is subject j's term times subject i's event flag, and its mean
is (share of events) x (mean of every subject's term): every subject, censored or not, is
scored as if its event had been observed at its time. No error - the shapes broadcast -
and the loss falls; the model learns to rank by "time on study", censoring included, not
by time to the event.

Reported: "Fixed bug in CoxLoss" - https://github.com/mahmoodlab/PathomicFusion/pull/9
(the term ``theta - log(sum(exp_theta * R_mat, dim=1))`` is 1-D, "if censor is a 2d tensor
(which is the case most of the time, as it is not squeezed in the function CoxLoss), then
pytorch will have to broadcast, and this multiplication will return a 2d matrix"; the fix
reshapes the censoring flags to 1-D and averages over the subjects with an event, as the
repository's CoxLoss now does). Here a small network reads the digit images of
right-censored subjects (``_survival_digits``: the true hazard grows with the digit; about
90% censored, as in many clinical cohorts), Adam, batches of 64.
Fix: ``censor = censor.reshape(-1)`` and the sum over events divided by their count.

Measured (300 steps, 397 held-out subjects; held-out concordance, 0.5 = chance):
seed 0: 0.607 for the bug against 0.753 for the fixed twin; seeds shifted by 1000: 0.626
against 0.687.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._survival_digits import concordance, survival

TITLE = "Fixed bug in CoxLoss"
LINK = "https://github.com/mahmoodlab/PathomicFusion/pull/9"
EXPECTED = ("LOSS_BROADCAST_OVER_BATCH",)
STEPS = 300
HELD_OUT = 397
CENSORING_RATE = 15.0       # [design] about 90% of the subjects censored


def cox_loss(hazard_pred, survtime, censor, fixed):
    at_risk = (survtime[None, :] >= survtime[:, None]).float()     # R[i, j]: j at risk at t_i
    theta = hazard_pred.reshape(-1)
    terms = theta - torch.log((torch.exp(theta)[None, :] * at_risk).sum(dim=1))
    if fixed:
        censor = censor.reshape(-1)
        return -(terms * censor).sum() / censor.sum().clamp(min=1)
    return -torch.mean(terms * censor)     # BUG: (N,) * (N, 1) -> an (N, N) matrix


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, duration, event, _ = survival(seed=0, censoring_rate=CENSORING_RATE)
    censor = event.unsqueeze(1)                          # (N, 1), as the loader hands it
    model = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    n_train = len(x) - HELD_OUT
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(n_train, steps, 64):
            optimizer.zero_grad()
            loss = cox_loss(model(x[index]), duration[index], censor[index], fixed)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        risk = model(x[-HELD_OUT:]).squeeze(1)
    mon.held_out_concordance = round(concordance(risk, duration[-HELD_OUT:],
                                                 event[-HELD_OUT:]), 3)
    mon.censored_share = round(1 - float(event.mean()), 2)
    return mon
