"""The final hidden state of a bidirectional LSTM, shaped (directions, batch, hidden), turned
into one row per sample with .view(batch, -1): the rows it makes pair the forward state of
one sample with the forward state of the next, so every prediction reads another sample.

Reported: "The dangers of reshaping and other fun mistakes I've learnt from PyTorch" -
https://medium.com/mcgill-artificial-intelligence-review/the-dangers-of-reshaping-and-other-fun-mistakes-ive-learnt-from-pytorch-b6a5bdc1c275
("Batch interference and the dangers of reshaping": the hidden state reshaped with view
mixes the samples of the batch). Here the 8x8 digits read row by row. Fix: move the batch
axis first (permute(1, 0, 2)) before flattening.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "The dangers of reshaping and other fun mistakes I've learnt from PyTorch"
LINK = ("https://medium.com/mcgill-artificial-intelligence-review/the-dangers-of-reshaping-"
        "and-other-fun-mistakes-ive-learnt-from-pytorch-b6a5bdc1c275")
EXPECTED = ("BATCH_MIXING",)
STEPS = 120


class RowReader(nn.Module):
    def __init__(self, fixed, hidden=32):
        super().__init__()
        self.fixed = fixed
        self.lstm = nn.LSTM(8, hidden, batch_first=True, bidirectional=True)
        self.head = nn.Linear(2 * hidden, 10)

    def forward(self, x):
        _, (h, _) = self.lstm(x.view(-1, 8, 8))          # h: (2, batch, hidden)
        if self.fixed:
            h = h.permute(1, 0, 2)
        return self.head(h.reshape(x.shape[0], -1))     # BUG when not fixed: rows mix samples


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = RowReader(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
    loss_fn = nn.CrossEntropyLoss()
    return train_watched(model, optimizer, loss_fn, batches(x, y, steps), **watch)
