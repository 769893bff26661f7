"""A packed LSTM whose lengths are sorted on their own to satisfy ``enforce_sorted=True``
while the lines stay in batch order: each line is packed with another line's length, so the
long lines are cut short (their ends never reach the LSTM) and the short ones are read on
into their padding. Nothing complains - the lengths are sorted, every one of them is a
length the batch holds - and the final state of each line ends at a position that has
nothing to do with where the line ends.

Reported: "`pack_padded_sequence` -> `pad_packed_sequence` can silently truncate input
tensor when max length is smaller than actual max sequence length" -
https://github.com/pytorch/pytorch/issues/144207 (lengths shorter than the sequences
truncate them "without any warning or error"; triaged as actionable: a warning was to be
added); the sort of the lengths alone is what OpenNMT-py#190 proposed and its reviewer
turned down ("If you are looking for the code that sorts the batch, it is in IO.py": the
batch, not the lengths, must be sorted). Here the sonnets' verse lines, padded with id 0,
labelled by whether they end in a comma. Measured (seed 0, 150 steps of Adam 3e-3): the bug's
loss over its last 20 steps is 0.256 (from 0.67; the lines whose borrowed length happens to
be close to their own are learned), the fixed twin's 0.001. Fix: sort the lines with their lengths (and restore the order), or
pass the true lengths with ``enforce_sorted=False``.
"""
import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence

from benchmarks.real_bugs._common import padded_lines, train_watched

TITLE = ("`pack_padded_sequence` -> `pad_packed_sequence` can silently truncate input tensor "
         "when max length is smaller than actual max sequence length")
LINK = "https://github.com/pytorch/pytorch/issues/144207"
EXPECTED = ("PADDING_LEAK", "OUTPUT_READS_FEW_TOKENS")
STEPS = 150


class PackedLineClassifier(nn.Module):
    def __init__(self, vocab, fixed, dim=32):
        super().__init__()
        self.fixed = fixed
        self.embed = nn.Embedding(vocab, dim, padding_idx=0)
        self.lstm = nn.LSTM(dim, dim, batch_first=True)
        self.classifier = nn.Linear(dim, 2)

    def forward(self, ids):
        lengths = (ids != 0).sum(1)
        if self.fixed:
            packed = pack_padded_sequence(self.embed(ids), lengths, batch_first=True,
                                          enforce_sorted=False)
        else:
            lengths, _ = lengths.sort(descending=True)   # BUG: the lines are not sorted
            packed = pack_padded_sequence(self.embed(ids), lengths, batch_first=True)
        _, (hidden, _) = self.lstm(packed)
        return self.classifier(hidden[-1])


def line_batches(ids, labels, steps, batch_size=32, seed=0):
    g = torch.Generator().manual_seed(seed)
    for _ in range(steps):
        rows = torch.randint(0, len(ids), (batch_size,), generator=g)
        yield ids[rows], labels[rows]


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    ids, vocab = padded_lines()
    lengths = (ids != 0).sum(1)
    last = ids[torch.arange(len(ids)), lengths - 1]
    comma = ids.unique()[6]                   # id 0 pads; then " !'()," in character order
    labels = (last == comma).long()
    model = PackedLineClassifier(vocab, fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    return train_watched(model, optimizer, nn.functional.cross_entropy,
                         line_batches(ids, labels, steps), **watch)
