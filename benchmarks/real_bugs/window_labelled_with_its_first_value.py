"""Windows cut from a price series with Keras' ``timeseries_dataset_from_array(data=price,
targets=price, sequence_length=W)``: the target of the window that starts at i is
``targets[i]``, the window's own FIRST value, not the value after it. The target window
overlaps the input window, so the model learns to copy a value it reads (the loss goes
to nearly zero) and never learns to forecast: asked for the next value, it answers with
the one from W steps ago.

Reported: "Update 10_Time_series_fundamentals_and_Milestone_Project_3_BitPredict ...
Exercise_Solutions.ipynb" -
https://github.com/mrdbourke/tensorflow-deep-learning/pull/532 ("According to the
documentation of tensorflow, the ds should be generate in this way, data =
price[:-WINDOW_SIZE], targets = price[WINDOW_SIZE:] ... in the original code, both price
are passed in, it simply treat the 1st data point in price as the first label"). Here the
same windowing written out in torch on two cycles and noise, window 7, an MLP (asked for
the value after each window it errs 1.40, squared, against the fixed twin's 0.07).
Fix: the targets start ``WINDOW`` values later (the value after each window).
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import train_watched

TITLE = ("Update 🛠_10_Time_series_fundamentals_and_Milestone_Project_3_BitPredi…")
LINK = "https://github.com/mrdbourke/tensorflow-deep-learning/pull/532"
EXPECTED = ("TARGETS_IN_INPUTS",)
STEPS = 200
WINDOW = 7


def prices(length=4000, seed=0):
    """Two cycles (24 and 50 steps) and noise: the next value is in the recent past."""
    g = torch.Generator().manual_seed(seed)
    t = torch.arange(length, dtype=torch.float32)
    return (torch.sin(2 * torch.pi * t / 24) + 0.5 * torch.sin(2 * torch.pi * t / 50)
            + 0.2 * torch.randn(length, generator=g))


def dataset_from_array(data, targets, length):
    """What ``timeseries_dataset_from_array`` pairs: window i is data[i:i + length], its
    target is targets[i]."""
    count = min(len(data) - length + 1, len(targets))
    x = torch.stack([data[i:i + length] for i in range(count)])
    return x, targets[:count]


def batches(x, y, steps, batch_size=32, seed=0):
    g = torch.Generator().manual_seed(seed)
    for _ in range(steps):
        rows = torch.randint(0, len(x), (batch_size,), generator=g)
        yield x[rows], y[rows]


def forecaster():
    return nn.Sequential(nn.Linear(WINDOW, 64), nn.ReLU(), nn.Linear(64, 1), nn.Flatten(0))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    price = prices()
    if fixed:
        x, y = dataset_from_array(price[:-WINDOW], price[WINDOW:], WINDOW)
    else:
        x, y = dataset_from_array(price, price, WINDOW)   # BUG: target i is the window's first value
    model = forecaster()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    return train_watched(model, optimizer, nn.functional.mse_loss, batches(x, y, steps), **watch)
