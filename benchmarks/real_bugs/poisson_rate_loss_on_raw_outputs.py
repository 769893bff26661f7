"""A count regressor's raw linear output is passed as the Poisson rate to
``PoissonNLLLoss(log_input=False)``, which computes ``input - target * log(input + eps)``:
any negative output gives the log of a negative number, NaN, and the mean over the batch is
NaN. A freshly initialised linear layer outputs negative values for about half its inputs,
so the loss is NaN from the first step. Its gradient, 1 - target / (input + eps), stays
finite, so no error is raised and the weights keep moving; once every output of a batch
is positive the loss is finite again, but the model has been fitted through an identity
link on an unbounded output (any later negative output makes the batch NaN again), and it
fits the counts worse than the log-rate model the loss was meant for.

Reported: "torch.nn.PoissonNLLLoss returns NaN for negative input when log_input=False" -
https://github.com/pytorch/pytorch/issues/184030 ("With `log_input=False` the loss computes
`input - target * log(input + eps)`; the docstring states that input parameterises a
Poisson rate (so `input >= 0`), but the constructor and forward path do not validate this,
and `log` of a negative number propagates as `NaN` through the reduction"; "the same hazard
does not exist for `log_input=True`, where the loss is `exp(input) - target * input`"; a
contributor reproduced it and proposed to clamp or to raise). Here an MLP on the digits'
pixels predicting a Poisson count whose mean grows with the digit (0.5 to 9.5), Adam.

Measured (300 steps, 297 held-out digits): the bug's loss is NaN on steps 0 and 1, then
finite; its held-out Poisson deviance is 2.62 per sample, against 2.75 for predicting the
training mean count; the fixed twin (the output read as the log rate, ``log_input=True``)
reaches 2.12.
Fix: keep the rate positive - read the output as a log rate (``log_input=True``, the
default) or pass it through softplus/exp - before a loss that takes its log.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, mlp, train_watched

TITLE = "torch.nn.PoissonNLLLoss returns NaN for negative input when log_input=False"
LINK = "https://github.com/pytorch/pytorch/issues/184030"
EXPECTED = ("LOG_OF_UNBOUNDED_OUTPUT",)
STEPS = 300
HELD_OUT = 297


def deviance(rate, counts):
    rate = rate.clamp_min(1e-8)
    term = torch.where(counts > 0, counts * torch.log(counts / rate), torch.zeros_like(rate))
    return float((2 * (term - (counts - rate))).mean())


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, digits = classification()
    counts = torch.poisson(digits.float() + 0.5).unsqueeze(1)
    model = mlp(outputs=1)
    if fixed:
        loss_fn = nn.PoissonNLLLoss(log_input=True)        # the output is the log rate
    else:
        loss_fn = nn.PoissonNLLLoss(log_input=False)       # BUG: a raw output as the rate
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    mon = train_watched(model, optimizer, loss_fn,
                        batches(x[:-HELD_OUT], counts[:-HELD_OUT], steps), **watch)
    with torch.no_grad():
        out = model(x[-HELD_OUT:])
    rate = out.exp() if fixed else out
    mon.test_nan_predictions = int(torch.isnan(out).sum())
    mon.test_negative_rates = int((rate < 0).sum())
    mon.test_deviance = round(deviance(rate, counts[-HELD_OUT:]), 3)
    mon.test_deviance_of_mean = round(deviance(
        torch.full_like(rate, float(counts[:-HELD_OUT].mean())), counts[-HELD_OUT:]), 3)
    return mon
