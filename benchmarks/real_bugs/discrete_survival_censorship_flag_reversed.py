"""A discrete-time survival model (a hazard per time bin, trained with the negative
log-likelihood of Zadeh & Schmid, as pathology survival benchmarks use) reads its
censorship column from a table where the flag is reversed: 1 marks a subject whose death
was observed, 0 one who was censored, while the loss takes ``c = 1`` as "censored". Every
observed death is then trained as "survived at least to this bin" and every censored
subject as "died in this bin": the model learns hazards from the censoring pattern instead
of the deaths. No error, the loss falls.

Reported: "fix survival label" - https://github.com/birkhoffkiki/GPFM/pull/10 ("The
censorship label in certain survival CSV files has been reversed"; the pull request flips
the column back). Here a small network reads the digit images of right-censored subjects
(``_survival_digits``: the true hazard grows with the digit's value, about 40% censored),
their times cut into four bins at the event-time quartiles, trained with the discrete-time
NLL on the reversed flag.
Fix: censorship = 1 - event (the flag the loss expects).

Measured (300 Adam steps, batch 64, 397 held-out subjects, seed 0): held-out concordance
of the risk (minus the summed survival curve) 0.427 for the bug - worse than chance, the
ranking is learnt backwards - and 0.725 for the fixed twin.
"""
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._survival_digits import concordance, survival

TITLE = "fix survival label"
LINK = "https://github.com/birkhoffkiki/GPFM/pull/10"
EXPECTED = ("CENSORING_FLAG_REVERSED",)
STEPS = 300
HELD_OUT = 397
BINS = 4


def nll_survival(logits, bin_index, censored, eps=1e-7):
    """Discrete-time NLL: hazards h_k = sigmoid(logit_k), survival S_k = prod_{j<=k}(1-h_j);
    an event in bin y costs -log S_{y-1} - log h_y, a subject censored in bin y -log S_y."""
    hazards = torch.sigmoid(logits)
    surv = torch.cumprod(1 - hazards, dim=1)
    surv_before = torch.cat([torch.ones_like(surv[:, :1]), surv[:, :-1]], dim=1)
    y = bin_index.long()[:, None]
    died = -(torch.gather(surv_before, 1, y).clamp(min=eps).log()
             + torch.gather(hazards, 1, y).clamp(min=eps).log())
    lived = -torch.gather(surv, 1, y).clamp(min=eps).log()
    c = censored[:, None]
    return ((1 - c) * died + c * lived).mean()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, duration, event, _ = survival(seed=0)
    cuts = torch.quantile(duration[event > 0], torch.tensor([0.25, 0.5, 0.75]))
    bin_index = torch.bucketize(duration, cuts).float()
    censorship = (1 - event) if fixed else event        # BUG: the flag read reversed
    target = torch.stack([bin_index, censorship], dim=1)
    model = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, BINS))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, tb in batches(x[:-HELD_OUT], target[:-HELD_OUT], steps):
            optimizer.zero_grad()
            loss = nll_survival(model(xb), tb[:, 0], tb[:, 1])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        surv = torch.cumprod(1 - torch.sigmoid(model(x[-HELD_OUT:])), dim=1)
    risk = -surv.sum(1)
    mon.extra = {"test_concordance": round(concordance(risk, duration[-HELD_OUT:],
                                                       event[-HELD_OUT:]), 3)}
    return mon
