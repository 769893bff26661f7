"""An LSTM encoder is declared with PyTorch's default time-major layout (batch_first=False)
but fed, and read, batch-major (batch, time, features) - the layout Keras and TensorFlow's
layers use. No shape error: the LSTM runs its recurrence across the SAMPLES of the batch,
treating each sample's rows as a 'batch', so every encoding carries the samples that came
before it in the batch and none of its own sequence order.

Reported: "batch_first should be True when initializing the LSTM?" -
https://github.com/salesforce/cove/issues/10 (the CoVe encoder's LSTM "is defined with
batch_first=False (default value)" while its inputs and outputs are handled batch-first:
"Will this cause inconsistency and generate wrong CoVe vectors?"; the maintainer changed the
LSTM to batch_first=True). Here each 8x8 digit is a sequence of 8 rows, encoded by an LSTM
whose outputs are mean-pooled over time and classified.

Measured (300 steps, batch 64, Adam 3e-3; accuracy on all 1797 digits, each digit encoded in
a batch of 64 in dataset order): bug 57.5% / cross-entropy 1.37, fixed 82.3% / 0.56.

Fix: nn.LSTM(..., batch_first=True) (or transpose the input to (time, batch, features)).
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "batch_first should be True when initializing the LSTM?"
LINK = "https://github.com/salesforce/cove/issues/10"
EXPECTED = ("BATCH_MIXING",)
STEPS = 300


class RowEncoder(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.lstm = nn.LSTM(8, 64, batch_first=fixed)    # BUG (unfixed): time-major default
        self.out = nn.Linear(64, 10)

    def forward(self, rows):                            # (batch, time=8 rows, 8 pixels)
        outputs, _ = self.lstm(rows)                     # read as (batch, time, hidden)
        return self.out(outputs.mean(dim=1))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = RowEncoder(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    return train_watched(model, optimizer, nn.CrossEntropyLoss(),
                         batches(x.view(-1, 8, 8), y, steps), **watch)
