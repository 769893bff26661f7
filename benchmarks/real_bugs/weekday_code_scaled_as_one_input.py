"""A day-of-week column (business days coded 1-5) is fed to a sales network as one number,
min-max scaled to [0, 1] like the price columns. The network then has to carve the weekly
pattern out of one slope: Monday and Friday are the two ends of the range, and a Tuesday
that sells like a Thursday but unlike a Wednesday needs a kink per day. Sales on each day
differ in no order, so the column is a category, not a quantity.

Reported: "Normalize identification values properly" -
https://datascience.stackexchange.com/questions/3811 (business days coded {1-5}, normalised
to {0, 1}, "results in a major bias in the final output"; the answer: "change that one,
5-state variable into five boolean variables ... [1,0,0,0,0] equal Monday, [0,1,0,0,0]
equal Tuesday"). Here the target is a digit's (standardised) value plus a weekday effect
in no order across the week; the inputs are the 64 pixels and the day. Measured (seed 0,
150 steps): the last 20 steps' mean squared error is 1.10 with the day as one scaled number
and 0.34 with five indicator columns. Fix: one indicator column per day.
"""
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, regression

TITLE = "Normalize identification values properly"
LINK = "https://datascience.stackexchange.com/questions/3811"
EXPECTED = ("CATEGORY_CODES_AS_ONE_NUMBER",)
STEPS = 150
DAYS = 5
EFFECT = torch.tensor([1.2, -1.0, 0.9, -1.2, 0.1])   # sales by weekday, in no order


def encode(day, fixed):
    """The day column as the network reads it."""
    code = day + 1                       # 1 = Monday ... 5 = Friday, as in the sales table
    if fixed:
        return F.one_hot(code - 1, DAYS).float()
    return ((code.float() - 1) / (DAYS - 1)).unsqueeze(1)   # BUG: the code min-max scaled


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = regression()
    generator = torch.Generator().manual_seed(0)
    width = 64 + (DAYS if fixed else 1)
    model = nn.Sequential(nn.Linear(width, 64), nn.ReLU(), nn.Linear(64, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            day = torch.randint(0, DAYS, (len(xb),), generator=generator)
            inputs = torch.cat([xb, encode(day, fixed)], dim=1)
            optimizer.zero_grad()
            loss = F.mse_loss(model(inputs).squeeze(1), yb + EFFECT[day])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
