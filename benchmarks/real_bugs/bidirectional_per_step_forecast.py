"""Per-time-step predictions of a series' next value from a bidirectional LSTM: the backward
direction has read the future of every step, so the value to predict is in what the model
reads, and the training error is far lower than any forecast can reach.

Reported: "Clarification regarding use of BiLSTMs in LoS and decompensation tasks" -
https://github.com/mostafaalishahi/eICU_Benchmark/issues/1 ("you make predictions at each
time step ... you seem to use bidirectional LSTMs to do so and I couldn't find a mechanism
in the code that censors future information ... This is likely to leak data"). Here each
8x8 digit read as a series of 64 pixels, the model predicting pixel t + 1 at every step t.
Fix: a unidirectional LSTM.
"""
import torch
from torch import nn
from torch.nn import functional as F

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "Clarification regarding use of BiLSTMs in LoS and decompensation tasks"
LINK = "https://github.com/mostafaalishahi/eICU_Benchmark/issues/1"
EXPECTED = ("FUTURE_LEAK",)
STEPS = 100


class Forecaster(nn.Module):
    def __init__(self, bidirectional, hidden=32):
        super().__init__()
        # BUG when bidirectional: every step's state has read the steps after it
        self.lstm = nn.LSTM(1, hidden, batch_first=True, bidirectional=bidirectional)
        self.head = nn.Linear(hidden * (2 if bidirectional else 1), 1)

    def forward(self, series):                   # (B, T, 1) -> (B, T, 1)
        out, _ = self.lstm(series)
        return self.head(out)


def next_values(x, y, steps):
    """(series[:, :-1], series[:, 1:]) of the digits read as 64-step series."""
    for xb, _ in batches(x, y, steps, batch_size=32):
        series = xb.unsqueeze(-1)
        yield series[:, :-1], series[:, 1:]


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = Forecaster(bidirectional=not fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
    return train_watched(model, optimizer, F.mse_loss, next_values(x, y, steps), **watch)
