"""A CRNN's convolutional features, laid out time-major (columns, batch, channels) the way
the original CRNN builds them for its LSTM, handed to an LSTM switched to batch_first=True:
the LSTM now reads the column axis as the batch and the batch as time, so its recurrence
runs from one sample to the next and the "last step" the head reads is the last column of
every sample seen so far. The loss falls a little and the model learns badly.

Reported: "LSTM change batch_first=True, loss does not decrease" -
https://discuss.pytorch.org/t/lstm-change-batch-first-true-loss-does-not-decrease/62364
("when I change the batch_first=True in LSTM, the loss does not decrease"; the CRNN's
features stay (width, batch, channels)). Here a small CRNN on the 8x8 digits: two
convolutions collapse the height, the 8 columns become the sequence (permute(2, 0, 1) as
in CRNN), an LSTM reads them and a linear head classifies the digit from the last column's
output; Adam, batches of 64, 300 steps.
Fix: keep the LSTM time-major (batch_first=False) for the (width, batch, channels)
features (or permute them to batch-first).

Measured (held-out accuracy on 500 digits): seed 0: 0.548 with the bug, 0.954 fixed;
seeds + 1000: 0.542 vs 0.942.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._seqaxis320 import accuracy, split

TITLE = "LSTM change batch_first=True, loss does not decrease"
LINK = "https://discuss.pytorch.org/t/lstm-change-batch-first-true-loss-does-not-decrease/62364"
EXPECTED = ("BATCH_MIXING", "INPUT_LAYOUT_SCRAMBLED")
STEPS = 300


class CRNN(nn.Module):
    def __init__(self, batch_first, hidden=64):
        super().__init__()
        self.cnn = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d((2, 1)),   # 16 x 4 x 8
            nn.Conv2d(16, 32, (4, 1)), nn.ReLU())                              # 32 x 1 x 8
        self.rnn = nn.LSTM(32, hidden, batch_first=batch_first)
        self.head = nn.Linear(hidden, 10)

    def forward(self, x):
        conv = self.cnn(x.view(-1, 1, 8, 8)).squeeze(2)     # (batch, channels, width)
        seq = conv.permute(2, 0, 1)                         # (width, batch, channels)
        out, _ = self.rnn(seq)                              # BUG when batch_first=True
        return self.head(out[-1])                           # the last column's output


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, xh, yh = split()
    model = CRNN(batch_first=not fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, xh, yh)
    return mon
