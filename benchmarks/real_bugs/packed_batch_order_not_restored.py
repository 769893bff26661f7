"""A classifier of variable-length sequences that sorts each batch by length for
``pack_padded_sequence`` (which wanted lengths in decreasing order) and never puts the
sequences back: the final states come out in sorted order while the labels stay in the
loader's order, so each label is scored against another sequence's features. The loss stays
at chance (2.30 after 150 steps; the fixed twin reaches 0.59).

Reported: "pass enforce_sorted to False" - https://github.com/fartashf/vsepp/pull/36
("I have seen differences when embedding sentences alone or in a batch, and what I have
observed is that embeddings in a batch seemed to be mixed up"; and: "in my implementation I
was sorting but then not getting the sort back"). Here the 8x8 digits read as 5 to 8 rows of
8 pixels (later rows cut off, padded with -1). Fix: ``enforce_sorted=False``, which restores
the batch order in the returned states (or sort, run, then index with the inverse order).
"""
import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "pass enforce_sorted to False"
LINK = "https://github.com/fartashf/vsepp/pull/36"
EXPECTED = ("BATCH_MIXING",)
STEPS = 150
PAD = -1.0


class PackedRowLSTM(nn.Module):
    def __init__(self, restore_order, hidden=32):
        super().__init__()
        self.restore_order = restore_order
        self.lstm = nn.LSTM(8, hidden, batch_first=True)
        self.classifier = nn.Linear(hidden, 10)

    def forward(self, x):                     # x: (batch, 8 rows, 8 pixels), PAD after the end
        lengths = (x[:, :, 0] != PAD).sum(dim=1)
        if self.restore_order:
            packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
        else:
            lengths, order = lengths.sort(descending=True)
            packed = pack_padded_sequence(x[order], lengths, batch_first=True)
        _, (h, _) = self.lstm(packed)
        return self.classifier(h[-1])         # BUG when sorted: rows in length order, the
                                              # labels in the batch's own order


def variable_lengths(x, seed=0):
    """Each image keeps its first 5-8 rows; the rest become PAD."""
    rows = x.view(-1, 8, 8).clone()
    keep = torch.randint(5, 9, (len(rows),), generator=torch.Generator().manual_seed(seed))
    rows[torch.arange(8)[None, :] >= keep[:, None]] = PAD
    return rows


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = PackedRowLSTM(restore_order=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    return train_watched(model, optimizer, nn.functional.cross_entropy,
                         batches(variable_lengths(x), y, steps), **watch)
