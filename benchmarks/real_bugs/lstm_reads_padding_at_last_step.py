"""An LSTM classifier fed end-padded lines without packing, whose prediction is read at
the last time step: for every line shorter than the longest that step is padding, so the
prediction is what is left of the line after the LSTM has read a run of padding tokens,
and it changes with how much the line happened to be padded.

Reported: "Updated Sentiment Analysis : what's the impact of not using
packed_padded_sequence()?" - https://github.com/bentrevett/pytorch-sentiment-analysis/issues/86
(quoting the tutorial: "Without packed padded sequences, hidden and cell are tensors from
the last element in the sequence, which will most probably be a pad token"; the author:
"your RNN has to explicitly learn that. It starts off with no prior knowledge that <pad>
tokens do not contain any information"). Here the sonnets' verse lines, padded with id 0,
labelled by whether they end in a comma. Fix: `pack_padded_sequence(..., lengths)` and
the final hidden state.
"""
import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence

from benchmarks.real_bugs._common import padded_lines, train_watched

TITLE = "Updated Sentiment Analysis : what's the impact of not using packed_padded_sequence()?"
LINK = "https://github.com/bentrevett/pytorch-sentiment-analysis/issues/86"
EXPECTED = ("PADDING_LEAK",)
STEPS = 100


class LineClassifier(nn.Module):
    def __init__(self, vocab, packed, dim=32):
        super().__init__()
        self.packed = packed
        self.embed = nn.Embedding(vocab, dim, padding_idx=0)
        self.lstm = nn.LSTM(dim, dim, batch_first=True)
        self.classifier = nn.Linear(dim, 2)

    def forward(self, ids):
        x = self.embed(ids)
        if self.packed:
            lengths = (ids != 0).sum(1)
            _, (hidden, _) = self.lstm(pack_padded_sequence(x, lengths, batch_first=True,
                                                            enforce_sorted=False))
            return self.classifier(hidden[-1])
        out, _ = self.lstm(x)                 # BUG: the padding is read like text,
        return self.classifier(out[:, -1])    # and the last step is a pad for most lines


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
    model = LineClassifier(vocab, packed=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    return train_watched(model, optimizer, nn.functional.cross_entropy,
                         line_batches(ids, labels, steps), **watch)
