"""A many-to-one LSTM classifier that scores every time step, then picks "the last step of
each sequence" with ``view(-1, batch_size, 1)[0]``: the flattened (batch x steps) outputs are
refolded as if they were step-major, so the row it keeps holds the first sequences' steps,
and the prediction given to sample i belongs to sample i // steps at step i % steps.

Reported: "Issue on Sentiment_RNN_Solution notebook forward() function." -
https://github.com/udacity/deep-learning-v2-pytorch/issues/9 (the solution's forward ran
the sigmoid head on `lstm_out.contiguous().view(-1, hidden_dim)`, then
`sig_out = sig_out.view(-1, batch_size, self.output_size)` and `sig_out = sig_out[0]`; the
reporter: "although we get the correct size (seq_len, batch_size, output_size), the order
of numbers will be mixed up and wrong, this just reshapes to rows by rows"; the notebook
now reads `sig_out.view(batch_size, -1)[:, -1]`). Here the 8x8 digits are read as 8 rows
of 8 pixels, labelled 0-4 against 5-9, with the notebook's sigmoid and BCELoss.
Fix: `sig_out.view(batch_size, -1)[:, -1]` (or run the head on `lstm_out[:, -1]` only).

Measured (200 steps, 297 held-out digits): held-out accuracy 0.50 with the bug, 0.88 fixed.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, binary, train_watched

TITLE = "Issue on Sentiment_RNN_Solution notebook forward() function."
LINK = "https://github.com/udacity/deep-learning-v2-pytorch/issues/9"
EXPECTED = ("BATCH_MIXING", "RESHAPE_USED_AS_TRANSPOSE")
STEPS = 200
HELD_OUT = 297


class SentimentLSTM(nn.Module):
    def __init__(self, refold_by_step, hidden=32):
        super().__init__()
        self.refold_by_step = refold_by_step
        self.hidden = hidden
        self.lstm = nn.LSTM(8, hidden, batch_first=True)
        self.fc = nn.Linear(hidden, 1)

    def forward(self, rows):                           # rows: (batch, 8 steps, 8 pixels)
        batch_size = rows.shape[0]
        lstm_out, _ = self.lstm(rows)
        lstm_out = lstm_out.contiguous().view(-1, self.hidden)   # (batch * steps, hidden)
        sig_out = torch.sigmoid(self.fc(lstm_out))
        if self.refold_by_step:                        # BUG: batch-major rows refolded
            return sig_out.view(-1, batch_size, 1)[0].squeeze(1)  # as if step-major
        return sig_out.view(batch_size, -1)[:, -1]


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = binary()
    x = x.view(-1, 8, 8)
    model = SentimentLSTM(refold_by_step=not fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
    mon = train_watched(model, optimizer, nn.BCELoss(),
                        batches(x[:-HELD_OUT], y[:-HELD_OUT], steps), **watch)
    with torch.no_grad():
        guess = (model(x[-HELD_OUT:]) > 0.5).float()
        mon.accuracy = round(float((guess == y[-HELD_OUT:]).float().mean()), 3)
    return mon
