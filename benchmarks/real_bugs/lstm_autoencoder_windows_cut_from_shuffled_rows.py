"""An LSTM autoencoder (RepeatVector style) for time-series anomaly detection whose training
rows were shuffled - a random split of the table's rows, as for tabular data - BEFORE the
sliding windows were cut. Every training "window" is then twenty frames drawn from all over
the series in random order: the values are right, the order in time is gone. The
autoencoder fits these as well as its code allows (the loss falls, to the spread of the
frames), but it never sees the series' rhythm, so a held-out stretch whose values stay
normal while its rhythm breaks reconstructs no worse than a normal one.

Reported: "UnconGen - Train / Val / Test Split" -
https://github.com/namjoonsuh/TimeAutoDiff/issues/4 (the series is shuffled and randomly
split before any windowing, so "the created sliding window [would] no longer match the real
sequences"; "Steps are no longer sorted appropriately").
Here: three phase-shifted sines (a slowly wandering period, noise); the first 2,000 steps
for training, their rows randomly permuted before windows of 20 steps are cut; the last
1,000 steps, windowed in time order, hold 12 bursts of 20 steps where the rotation runs
backwards (the same values, the same spread, the opposite order).
A window is anomalous if it holds a burst step; its score is the mean squared
reconstruction error. Encoder LSTM(3, 16) -> Linear(16, 4) code, repeated over the steps
-> decoder LSTM(4, 16) -> Linear(16, 3), Adam 3e-3, batch 32.
Fix: split in time and cut the windows from the rows in their time order (no shuffle before
windowing; the windows themselves may be shuffled into batches).

Measured (held-out AUROC of the window scores): 0.12 with the bug, 0.99 fixed;
seeds + 1000: 0.13 vs 0.97.
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._lstm_ae302 import (CHANNELS, auroc, index_batches, phase_series,
                                              windows)

TITLE = "UnconGen - Train / Val / Test Split"
LINK = "https://github.com/namjoonsuh/TimeAutoDiff/issues/4"
# closest code: each training window's steps are out of their time order
EXPECTED = ("INPUT_LAYOUT_SCRAMBLED",)
STEPS = 300


class LSTMAutoencoder(nn.Module):
    def __init__(self, hidden=16, code=4):
        super().__init__()
        self.encoder = nn.LSTM(CHANNELS, hidden, batch_first=True)
        self.to_code = nn.Linear(hidden, code)
        self.decoder = nn.LSTM(code, hidden, batch_first=True)
        self.out = nn.Linear(hidden, CHANNELS)

    def forward(self, x):                       # x: (batch, steps, channels)
        _, (h, _) = self.encoder(x)
        code = self.to_code(h[-1])
        repeated = code.unsqueeze(1).repeat(1, x.shape[1], 1)    # RepeatVector
        y, _ = self.decoder(repeated)
        return self.out(y)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, mask = phase_series(seed=0, burst_speed=-1.0)
    train_rows, train_mask = x[:2000], mask[:2000]
    if not fixed:   # BUG: the rows are shuffled (a random split) before windowing
        order = torch.from_numpy(np.random.default_rng(1).permutation(len(train_rows)))
        train_rows, train_mask = train_rows[order], train_mask[order]
    train_x, _ = windows(train_rows, train_mask)
    test_x, is_anomaly = windows(x[2000:], mask[2000:], step=5)
    model = LSTMAutoencoder()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(train_x), steps, seed=0):
            batch = train_x[index]
            loss = ((model(batch) - batch) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        scores = ((model(test_x) - test_x) ** 2).mean((1, 2))
    mon.held_out_auroc = auroc(scores, is_anomaly)
    return mon
