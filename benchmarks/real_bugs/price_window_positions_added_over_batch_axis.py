"""A transformer price forecaster whose encoder is batch-first but whose positional
encoding is the tutorial's sequence-first one (a table of shape (max_len, 1, d) added as
``x + pe[:x.size(0)]``): on a (batch, window, d) input ``x.size(0)`` is the batch size, so
window b gets the one vector pe[b] added at every time step. No step of a window is told
where it sits, the encoder sees each window as a bag of values, and the forecast (read at
the last step) cannot tell the value one step back from the value twenty steps back. The
loss still falls: the last value alone predicts the next one roughly.

Reported: "transformer这部分位置编码输入形状和dataloader不一致 这个问题很大 我改了一下 结果会好很多"
(the positional encoding's input shape disagrees with the dataloader's; "a big problem",
with the fix "the results are much better") -
https://github.com/dylanmiao7/stock_prediction-based-on-lstm-and-transformer/issues/4 (the
reporter's fix: a (1, max_len, d) table sliced on the window axis, ``pe[:, :seq_len]``).
Here a noisy damped oscillation (an AR(2) series of 3,000 steps, standardised on its
first 80%) cut into 24-step windows and the next value; Linear(1, 32) input projection,
2 encoder layers (batch_first=True), the last step's output -> Linear(32, 1); MSE, Adam
1e-3, batches of 64, 200 steps; held out: the windows of the last 20% of the series.

Fix: the batch-first table, sliced on the window axis (``BatchFirstPositions``).

Measured (held-out MSE, standardised units): 0.383 with the bug, 0.087 fixed;
seeds + 1000: 0.434 vs 0.081.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._encoder_tutorials import (BatchFirstPositions, SeqFirstPositions,
                                                      oscillator_windows)

TITLE = "transformer这部分位置编码输入形状和dataloader不一致 这个问题很大 我改了一下 结果会好很多"
LINK = "https://github.com/dylanmiao7/stock_prediction-based-on-lstm-and-transformer/issues/4"
EXPECTED = ("POSITIONS_IGNORED",)
STEPS = 200


class PriceTransformer(nn.Module):
    def __init__(self, positions, dim=32):
        super().__init__()
        self.project = nn.Linear(1, dim)
        self.positions = positions
        layer = nn.TransformerEncoderLayer(dim, 4, dim_feedforward=64, dropout=0.0,
                                           batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.head = nn.Linear(dim, 1)

    def forward(self, x):                       # x: (batch, window, 1)
        h = self.positions(self.project(x))
        h = self.encoder(h)
        return self.head(h[:, -1]).squeeze(-1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (x, y), (xh, yh) = oscillator_windows(seed=0)
    # BUG when not fixed: the sequence-first table on batch-first windows
    positions = BatchFirstPositions(32) if fixed else SeqFirstPositions(32)
    model = PriceTransformer(positions)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.MSELoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps, seed=0):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        mon.held_out_mse = loss_fn(model(xh), yh).item()
    return mon
