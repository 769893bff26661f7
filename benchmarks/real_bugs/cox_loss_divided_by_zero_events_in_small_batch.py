"""A Cox partial-likelihood loss averaged over the batch's events - the sum of the events'
terms divided by ``events.sum()`` - trained on small batches of heavily censored
subjects. Sooner or later a batch holds no event at all: the numerator is 0, the
denominator is 0, and the loss is 0/0 = NaN. Its backward sends NaN into every gradient,
Adam writes NaN into every weight, and from then on the model outputs NaN for every
subject; nothing raises, and the loop keeps stepping.

Reported: "no loss for training with small batch size," - https://github.com/havakv/pycox/issues/124
(DeepSurv in pycox trained with batch size 64 showed no loss and always early-stopped,
while batch size 1024 trained properly; the reporter found the cause: "having zero positive
event when batch size is small. Therefore, dividing the number of positive events can
explode the loss", fixed locally by adding a small number to the denominator). Here a
small network reads the digit images of right-censored subjects (``_survival_digits``,
the true hazard growing with the digit; about 80% censored), Adam on batches of 16
(a batch without an event: about 3% of batches).
Fix: a floor under the event count (``events.sum() + 1e-7``: a batch without an event
contributes a zero loss).

Measured (400 steps, Adam 2e-3, 397 held-out subjects; held-out concordance of the
predicted risk, 0.5 = chance): seed 0: 0.50 for the bug (the first batch without an event
is step 7; every weight NaN from then on, every held-out risk NaN, scored as ties) against
0.719 for the fixed twin; seeds shifted by 1000: 0.50 (first such batch: step 22) against
0.748.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._survival_digits import concordance, survival

TITLE = "no loss for training with small batch size,"
LINK = "https://github.com/havakv/pycox/issues/124"
EXPECTED = ("NAN_BORN_IN_FORWARD",)
STEPS = 400
HELD_OUT = 397
BATCH = 16
CENSORING_RATE = 6.0        # [design] about 80% of the subjects censored


def cox_ph_loss(log_h, duration, event, fixed):
    order = torch.argsort(duration, descending=True)       # risk sets by a running sum
    log_h, event = log_h[order], event[order]
    terms = (log_h - torch.logcumsumexp(log_h, dim=0)) * event
    if fixed:
        return -terms.sum() / (event.sum() + 1e-7)
    return -terms.sum() / event.sum()      # BUG: 0 / 0 on a batch without an event


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, duration, event, _ = survival(seed=0, censoring_rate=CENSORING_RATE)
    model = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    n_train = len(x) - HELD_OUT
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(n_train, steps, BATCH):
            optimizer.zero_grad()
            loss = cox_ph_loss(model(x[index]).squeeze(1), duration[index], event[index],
                               fixed)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        risk = model(x[-HELD_OUT:]).squeeze(1)
    mon.held_out_nan_risks = int(torch.isnan(risk).sum())
    risk = torch.nan_to_num(risk, nan=0.0)                   # NaN risks: all tied
    mon.held_out_concordance = round(concordance(risk, duration[-HELD_OUT:],
                                                 event[-HELD_OUT:]), 3)
    mon.censored_share = round(1 - float(event.mean()), 2)
    return mon
