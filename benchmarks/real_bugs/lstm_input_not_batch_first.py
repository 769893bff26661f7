"""An LSTM built with the default batch_first=False is fed (batch, sequence, features): it
runs along the batch, so each sample's prediction depends on the samples before it.

Reported: "different result on LSTM whether using batch_first" -
https://github.com/pytorch/pytorch/issues/1538 (an LSTM classifying MNIST row by row,
`nn.LSTM(in_dim, hidden_dim, n_layer)` with the `batch_first=True` commented out, fed
(batch, 28, 28) images, and the last time step read as `out[:, -1, :]`). Here the 8x8
digits are read as 8 rows of 8 pixels. Fix: `batch_first=True` (or feed (sequence,
batch, features)).
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "different result on LSTM whether using batch_first"
LINK = "https://github.com/pytorch/pytorch/issues/1538"
EXPECTED = ("BATCH_MIXING",)
STEPS = 150


class RowLSTM(nn.Module):
    def __init__(self, batch_first):
        super().__init__()
        self.lstm = nn.LSTM(8, 32, batch_first=batch_first)
        self.classifier = nn.Linear(32, 10)

    def forward(self, x):                    # x: (batch, 8 rows, 8 pixels)
        out, _ = self.lstm(x)                # BUG when batch_first=False: the batch is
        return self.classifier(out[:, -1, :])   # read as time, the rows as the batch


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = RowLSTM(batch_first=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb.view(-1, 8, 8)), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
