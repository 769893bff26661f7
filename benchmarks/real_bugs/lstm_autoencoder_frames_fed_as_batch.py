"""An LSTM autoencoder (encoder LSTM, its last state repeated over the window, decoder
LSTM, RepeatVector style) whose windows reach the LSTMs as sequences of ONE step: each
window's frames are laid along the batch axis, so every frame is encoded and decoded on its
own. The "sequence" autoencoder is a per-frame autoencoder; with a code wider than a frame
it reconstructs almost any frame well, the training loss falls to the noise floor, and it
never sees the order of the frames - an anomaly that keeps each value normal and only
breaks the rhythm scores like normal data.

Reported: "Incorrect dimensions (leading to misleading performance)" -
https://github.com/beld/Tensorflow-seq2seq-autoencoder/issues/1 (the encoder input was one
tensor of shape (size, frame_dim); "tf.nn.rnn may see this as a sequence of length 1, where
the batch size is 10"; the fix unpacks the window into its time steps).
Here: three phase-shifted sines (a slowly wandering period, noise), windows of 20 steps,
the first 2,000 steps for training; the last 1,000 steps hold 12 bursts of 20 steps run at
2.5 times the speed. A window is anomalous if it holds a burst step; its score is the mean
squared reconstruction error. Encoder LSTM(3, 16) -> Linear(16, 4) code, repeated over the
steps -> decoder LSTM(4, 16) -> Linear(16, 3), Adam 3e-3, batch 32.
Fix: hand the LSTMs the window as (batch, steps, channels), batch_first=True.

Measured (held-out AUROC of the window scores): 0.66 with the bug, 0.97 fixed;
seeds + 1000: 0.54 vs 0.99.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._lstm_ae302 import (CHANNELS, WINDOW, auroc, index_batches,
                                              phase_series, windows)

TITLE = "Incorrect dimensions (leading to misleading performance)"
LINK = "https://github.com/beld/Tensorflow-seq2seq-autoencoder/issues/1"
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
        code = self.to_code(h[-1])              # (batch, code)
        repeated = code.unsqueeze(1).repeat(1, x.shape[1], 1)    # RepeatVector
        y, _ = self.decoder(repeated)
        return self.out(y)


def reconstruct(model, batch, fixed):
    if fixed:
        return model(batch)
    # BUG: the window's frames go in as a batch of one-step sequences
    frames = batch.reshape(-1, 1, CHANNELS)
    return model(frames).reshape(batch.shape)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, mask = phase_series(seed=0)
    train_x, _ = windows(x[:2000], mask[:2000])
    test_x, is_anomaly = windows(x[2000:], mask[2000:], step=5)
    model = LSTMAutoencoder()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(train_x), steps, seed=0):
            batch = train_x[index]
            loss = ((reconstruct(model, batch, fixed) - batch) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        scores = ((reconstruct(model, test_x, fixed) - test_x) ** 2).mean((1, 2))
    mon.held_out_auroc = auroc(scores, is_anomaly)
    return mon
