"""A decoder-only transformer forecaster (one token per time step, trained to predict the
next value at every position) whose look-ahead mask is the wrong triangle: -inf below the
diagonal instead of above, so each step attends to itself and every LATER step - including
the very value it is asked to predict. Training loss drops almost to zero; at forecast
time the last position has no future to read and sees only itself, so the real next-step
forecast is poor.

Reported: "Flipped look-ahead attention mask for transformer" -
https://github.com/pytorch/pytorch/issues/29546 (generate_square_subsequent_mask returned
-inf below the diagonal, "allowing initial tokens to use future information"). Here 3000
synthetic seasonal windows of 49 steps (each standardised by its first 48 steps), a
linear embedding of each value, learned positions, one encoder layer under a float
attention mask, a linear head; Adam 2e-3, batches of 32, MSE of the next value at each of
the 48 positions. Held-out: the value after the window, read from the last position.
Fix: the mask with -inf strictly above the diagonal (torch.triu(..., diagonal=1)).

Measured (held-out next-step MSE, standardised units, 500 other series): 0.228 with the
bug, 0.130 fixed; seeds + 1000: 0.251 vs 0.144.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._ts327 import LOOKBACK, windows

TITLE = "Flipped look-ahead attention mask for transformer"
LINK = "https://github.com/pytorch/pytorch/issues/29546"
EXPECTED = ("FUTURE_LEAK",)
STEPS = 300


def standardised(n, seed):
    x, y, _ = windows(n, seed)
    series = torch.cat([x, y[:, :1]], dim=1)[..., 0]          # (n, LOOKBACK + 1)
    past = series[:, :LOOKBACK]
    return (series - past.mean(1, keepdim=True)) / past.std(1, keepdim=True)


def look_ahead_mask(size, flipped):
    ones = torch.ones(size, size)
    # BUG when flipped: the lower triangle is hidden, every step sees the steps after it
    hidden = torch.tril(ones, diagonal=-1) if flipped else torch.triu(ones, diagonal=1)
    return hidden.masked_fill(hidden == 1, float("-inf"))


class NextStepTransformer(nn.Module):
    def __init__(self, flipped, dim=32):
        super().__init__()
        self.embed = nn.Linear(1, dim)
        self.position = nn.Parameter(0.02 * torch.randn(1, LOOKBACK, dim))
        layer = nn.TransformerEncoderLayer(dim, 4, 64, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 1, enable_nested_tensor=False)
        self.head = nn.Linear(dim, 1)
        self.register_buffer("mask", look_ahead_mask(LOOKBACK, flipped))

    def forward(self, x):                       # x (B, T) -> the next value at each step
        h = self.embed(x[..., None]) + self.position[:, :x.shape[1]]
        h = self.encoder(h, mask=self.mask[:x.shape[1], :x.shape[1]])
        return self.head(h)[..., 0]


def run(fixed=False, steps=STEPS, **watch):
    series, held_out = standardised(3000, 0), standardised(500, 1)
    torch.manual_seed(0)
    model = NextStepTransformer(flipped=not fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    loss_fn = nn.MSELoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(series), steps, 32, seed=0):
            batch = series[index]
            optimizer.zero_grad()
            loss = loss_fn(model(batch[:, :-1]), batch[:, 1:])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        forecast = model(held_out[:, :-1])[:, -1]
        mon.held_out_next_step_mse = ((forecast - held_out[:, -1]) ** 2).mean().item()
    return mon
