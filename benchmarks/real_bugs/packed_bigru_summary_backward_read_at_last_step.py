"""A bidirectional GRU text encoder over packed variable-length sequences that takes its
summary from the padded output at each sequence's last real step, ``padded[i, length_i -
1]``. The forward half of that vector is the forward direction's final state, but the
backward half is the backward direction's FIRST state: it starts at the last token, so at
that position it has read one token. The sequence's beginning reaches the summary only
through the forward direction's long memory, the backward direction (which reads the
beginning last) contributes nothing of it, and the loss sits near chance while every shape
is right and nothing errors.

Reported: "Bidirectional GRU Bugs" - https://github.com/yalesong/pvse/issues/13 (the
encoders took ``padded[0][i, length - 1]`` of a packed bidirectional GRU; the reporter
showed its forward half equals ``h_n[0][i]`` but its backward half does not equal
``h_n[1][i]``, "the first state was used in the reverse direction"; fixed by PR #14, merged,
which reads the final hidden state of both directions). Here sequences of 10-30 tokens of
10, labelled by their first two tokens (benchmarks/real_bugs/_rnn170.py): an embedding, a
bidirectional GRU (32 units a direction) over the packed batch (enforce_sorted=False), a
linear classifier on the 64-wide summary; Adam 3e-3, batch 64 from 4,000 training
sequences. Fix: ``torch.cat([h_n[0], h_n[1]], -1)``.

Measured (held-out accuracy on 1,000 sequences, chance 0.10): seed 0, 0.09 for the bug
against 1.00 for the fixed twin; seeds shifted by 1000, 0.10 against 1.00.
"""
import numpy as np
import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

import nndebug as nd
from benchmarks.real_bugs._rnn170 import first_token_sequences

TITLE = "Bidirectional GRU Bugs"
LINK = "https://github.com/yalesong/pvse/issues/13"
EXPECTED = ("RNN_READ_BEFORE_RECURRENCE",)
STEPS = 300
LONGEST, BATCH, HIDDEN = 30, 64, 32


class BiGRUEncoder(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.fixed = fixed
        self.embed = nn.Embedding(11, 16, padding_idx=0)
        self.gru = nn.GRU(16, HIDDEN, batch_first=True, bidirectional=True)
        self.classify = nn.Linear(2 * HIDDEN, 10)

    def forward(self, tokens, lengths):
        packed = pack_padded_sequence(self.embed(tokens), lengths, batch_first=True,
                                      enforce_sorted=False)
        out, h_n = self.gru(packed)
        if self.fixed:
            summary = torch.cat([h_n[0], h_n[1]], dim=-1)
        else:   # BUG: backward half at the last step has read one token
            padded, _ = pad_packed_sequence(out, batch_first=True)
            summary = padded[torch.arange(len(tokens)), lengths - 1]
        return self.classify(summary)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    tokens, labels, lengths = first_token_sequences(4000, LONGEST, rng)
    test_tokens, test_labels, test_lengths = first_token_sequences(1000, LONGEST, rng)
    model = BiGRUEncoder(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            rows = torch.from_numpy(rng.integers(0, len(tokens), BATCH))
            loss = nn.functional.cross_entropy(model(tokens[rows], lengths[rows]),
                                               labels[rows])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        predicted = model(test_tokens, test_lengths).argmax(-1)
        mon.held_out_accuracy = (predicted == test_labels).float().mean().item()
    return mon
