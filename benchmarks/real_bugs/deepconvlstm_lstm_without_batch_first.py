"""A DeepConvLSTM for sensor windows whose LSTM is built with the default
``batch_first=False`` while the convolution features are handed to it as (batch, time,
features): the LSTM's recurrence runs across the windows of the batch, and each window's
prediction is made from the windows before it in the batch.

Reported: "About the `torch.nn.LSTM`'s parameter batch_first in the DeepConvLSTM network" -
https://github.com/mariusbock/dl-for-har/issues/11 (the tutorial's
`nn.LSTM(self.nb_filters*self.nb_channels, hidden_size=..., num_layers=...)` is fed
`x.reshape(-1, final_seq_len, self.nb_filters * self.nb_channels)`, commented
"#(batch_size, final_seq_len, nb_fillters*nb_channels)"). Here the 8x8 digits stand in for
windows of 8 time steps over 8 sensor channels: two (3 x 1) convolutions along time, then
the LSTM, then the class read at the last time step, as the tutorial does.
Fix: `nn.LSTM(..., batch_first=True)`.

Measured (200 steps, 297 held-out windows, predicted in batches of 64 as in training):
held-out accuracy 0.68 with the bug, 0.79 fixed.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "About the `torch.nn.LSTM`'s parameter batch_first in the DeepConvLSTM network"
LINK = "https://github.com/mariusbock/dl-for-har/issues/11"
EXPECTED = ("BATCH_MIXING",)
STEPS = 200
HELD_OUT = 297
FILTERS = 8


class DeepConvLSTM(nn.Module):
    def __init__(self, batch_first, channels=8, hidden=32, classes=10):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(1, FILTERS, (3, 1)), nn.ReLU(),
                                  nn.Conv2d(FILTERS, FILTERS, (3, 1)), nn.ReLU())
        # BUG when batch_first=False: the (batch, time, features) input is read time-major
        self.lstm = nn.LSTM(FILTERS * channels, hidden, batch_first=batch_first)
        self.classifier = nn.Linear(hidden, classes)

    def forward(self, x):                          # x: (batch, 1, window, channels)
        x = self.conv(x)                           # (batch, filters, time, channels)
        final_seq_len = x.shape[2]
        x = x.permute(0, 2, 1, 3).reshape(-1, final_seq_len, x.shape[1] * x.shape[3])
        x, _ = self.lstm(x)                        # meant: (batch, time, hidden)
        return self.classifier(x[:, -1, :])


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification(images=True)
    model = DeepConvLSTM(batch_first=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    mon = train_watched(model, optimizer, nn.functional.cross_entropy,
                        batches(x[:-HELD_OUT], y[:-HELD_OUT], steps), **watch)
    with torch.no_grad():
        held_x, held_y = x[-HELD_OUT:], y[-HELD_OUT:]
        guess = torch.cat([model(held_x[i:i + 64]).argmax(1) for i in range(0, HELD_OUT, 64)])
        mon.accuracy = round(float((guess == held_y).float().mean()), 3)
    return mon
