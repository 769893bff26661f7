"""An LSTM autoencoder (RepeatVector style) for sensor anomaly detection, trained on
anomaly-free data standardised with the training mean and std - but the stream it later
scores is standardised with ITS OWN mean and std. When a fault shifts one sensor for most of
that stream, its own statistics absorb the shift: the faulty readings land near the values
the model knows, and the healthy stretch is the one pushed off them. Training itself is
healthy (the loss falls, normal windows are reconstructed well); the scores then rank the
healthy windows above the faulty ones.

Reported: "what is correct way to perform normalization on data in Auto encoder?" -
https://datascience.stackexchange.com/questions/47086/what-is-correct-way-to-perform-normalization-on-data-in-auto-encoder
(an autoencoder trained on anomaly-free sensor data; "if I add noise (delta=300) to 80% of
the data and perform normalization on the dataset ... prediction follows the noise").
Here: three phase-shifted sine sensors around 250 with spread near 80 (noise added); the
model trains on the first 2,000 steps; in the 1,000 steps it then scores, sensor 0 reads
300 higher over 80% of the steps (one stretch). Windows of 20 steps, a window is anomalous if
it holds a shifted reading; its score is the mean squared reconstruction error. Encoder
LSTM(3, 16) -> Linear(16, 4) code, repeated over the steps -> decoder LSTM(4, 16) ->
Linear(16, 3), Adam 3e-3, batch 32.
Fix: standardise the scored stream with the training data's mean and std (the fitted
scaler's transform), never with its own.

Measured (held-out AUROC of the window scores): 0.01 with the bug, 1.00 fixed;
seeds + 1000: 0.01 vs 1.00.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._lstm_ae302 import (CHANNELS, auroc, index_batches, phase_series,
                                              windows)

TITLE = "what is correct way to perform normalization on data in Auto encoder?"
LINK = ("https://datascience.stackexchange.com/questions/47086/"
        "what-is-correct-way-to-perform-normalization-on-data-in-auto-encoder")
EXPECTED = ("VALIDATION_SCALED_ON_ITSELF",)
STEPS = 300
LEVEL, SPREAD, DELTA = 250.0, 80.0, 300.0
SHIFTED = (100, 900)            # the faulty stretch of the scored stream (80% of it)


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
    x, _ = phase_series(seed=0, bursts=0)
    raw = LEVEL + SPREAD * x                     # sensor readings in their own units
    train_raw, stream_raw = raw[:2000], raw[2000:].clone()
    fault = torch.zeros(len(stream_raw))
    fault[SHIFTED[0]:SHIFTED[1]] = 1
    stream_raw[SHIFTED[0]:SHIFTED[1], 0] += DELTA
    mean, std = train_raw.mean(0), train_raw.std(0)
    train = (train_raw - mean) / std
    if fixed:
        stream = (stream_raw - mean) / std
    else:   # BUG: the scored stream is standardised with its own statistics
        stream = (stream_raw - stream_raw.mean(0)) / stream_raw.std(0)
    train_x, _ = windows(train, torch.zeros(len(train)))
    test_x, is_anomaly = windows(stream, fault, step=5)
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
