"""A bidirectional LSTM classifier that reads ``output[:, -1, :]`` as its summary of the
sequence: the forward half of that vector has read every step, but the backward half has
read only the LAST step (the backward direction starts at the end), so half the features the
classifier sees come from one row of the image. The backward recurrent weights get an
exactly zero gradient (that direction never runs a second step), and the loss ends above the
fixed twin's (0.32 against 0.19, mean of the last 20 of 150 steps).

Reported: "output of bidirectional LSTM" - https://github.com/yunjey/pytorch-tutorial/issues/149
("if we pick the output at the last time step, the reverse RNN will have only seen the last
input ... It'll hardly provide any predictive power"; the suggestion: concatenate the last
hidden state of the forward LSTM and the first of the reverse one). Here the 8x8 digits
are read as 8 rows of 8 pixels, bottom row last. Fix: take the final states ``h_n`` of both
directions (forward's after the last step, backward's after the first).
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "output of bidirectional LSTM"
LINK = "https://github.com/yunjey/pytorch-tutorial/issues/149"
EXPECTED = ("RNN_READ_BEFORE_RECURRENCE",)
STEPS = 150


class BiRowLSTM(nn.Module):
    def __init__(self, final_states, hidden=16):
        super().__init__()
        self.final_states = final_states
        self.lstm = nn.LSTM(8, hidden, batch_first=True, bidirectional=True)
        self.classifier = nn.Linear(2 * hidden, 10)

    def forward(self, x):                     # x: (batch, 8 rows, 8 pixels)
        out, (h, _) = self.lstm(x)
        if self.final_states:                 # forward's last state, backward's after step 0
            summary = torch.cat([h[0], h[1]], dim=1)
        else:
            summary = out[:, -1, :]           # BUG: its backward half has read one row only
        return self.classifier(summary)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = BiRowLSTM(final_states=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    return train_watched(model, optimizer, nn.functional.cross_entropy,
                         batches(x.view(-1, 8, 8), y, steps), **watch)
