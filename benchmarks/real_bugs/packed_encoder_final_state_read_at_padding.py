"""A packed LSTM whose summary of each line is read from the padded output at the last time
step: after ``pad_packed_sequence`` every position past a line's length is zero, so for every
line shorter than the longest one in its batch the "final encoder output" is a vector of
zeros. The classifier sees nothing of those lines and can only learn the bias; the lines
that happen to be the longest of their batch are the only ones it ever reads.

Reported: "possible masking bug in simple_seq2seq" - https://github.com/allenai/allennlp/issues/1713
("The final hidden states for shorter sequences are set to 0 ... The final_encoder_output
needs to be the encoder output at the last valid timestep"; the maintainer: "Yep, this is a
bug ... The fix is to use this function [get_final_encoder_states] instead of the line you
quoted"). Here the sonnets' verse lines, padded with id 0, labelled by whether they end in a
comma (as the padding case of bentrevett/pytorch-sentiment-analysis#86). Measured (seed 0,
150 steps of Adam 3e-3): the bug's loss over its last 20 steps is 0.655 (it started at
0.68: the prior of the comma share and nothing more), the fixed twin's 0.001. Fix: read
the output at each line's last real step (``out[arange(B), lengths - 1]``), or the packed
LSTM's h_n, which already is that step.
"""
import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from benchmarks.real_bugs._common import padded_lines, train_watched

TITLE = "possible masking bug in simple_seq2seq"
LINK = "https://github.com/allenai/allennlp/issues/1713"
EXPECTED = ("OUTPUT_READS_FEW_TOKENS",)
STEPS = 150


class PackedLineEncoder(nn.Module):
    def __init__(self, vocab, fixed, dim=32):
        super().__init__()
        self.fixed = fixed
        self.embed = nn.Embedding(vocab, dim, padding_idx=0)
        self.lstm = nn.LSTM(dim, dim, batch_first=True)
        self.classifier = nn.Linear(dim, 2)

    def forward(self, ids):
        lengths = (ids != 0).sum(1)
        packed = pack_padded_sequence(self.embed(ids), lengths, batch_first=True,
                                      enforce_sorted=False)
        out, _ = pad_packed_sequence(self.lstm(packed)[0], batch_first=True)
        if self.fixed:
            final = out[torch.arange(len(ids)), lengths - 1]   # the last valid step
        else:
            final = out[:, -1]          # BUG: zeros for every line shorter than the longest
        return self.classifier(final)


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
    model = PackedLineEncoder(vocab, fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    return train_watched(model, optimizer, nn.functional.cross_entropy,
                         line_batches(ids, labels, steps), **watch)
