"""An encoder-decoder whose packed-LSTM encoder hands the decoder its final state as
``(h, h)``: the line that puts the final state back into the batch's order indexes the
hidden state twice, ``h, c = h[:, order], h[:, order]``, so the decoder starts with the
encoder's OUTPUT where its cell state belongs, and the encoder's real cell state - the
LSTM's long memory - is thrown away (it gets no gradient either). Everything has the right
shape, training runs and the loss falls; the decoder just starts from a squashed, partial
copy of what the encoder read, and reproduces less of it.

Reported: "Bug with returning final state in PackedLSTM?" -
https://github.com/salesforce/decaNLP/issues/9 (decaNLP's PackedLSTM returned ``h, c =
h[:, _indices, :], h[:, _indices, :]``; the reporter: it should be ``c[:, _indices, :]``
for the second; the maintainer fixed it in commit 1c9f12b). Here a sequence-reversal task
(benchmarks/real_bugs/_rnn170.py): 4-9 tokens of 10, right-padded; the encoder sorts the
batch by length, packs it, runs an LSTM (32 units) and puts (h_n, c_n) back in the batch's
order; an LSTM decoder (32 units) started from that state reads the reversed target
shifted by one (teacher forcing) and is trained by cross-entropy over the real tokens;
Adam 3e-3, batch 64, fresh pairs every step. Fix: ``c_n[:, order]`` for the cell state.

Measured (held-out token accuracy of the teacher-forced decoder over 1,000 fresh pairs,
and the share of sequences reversed without a mistake): seed 0, 0.87 for the bug against
0.93 for the fixed twin (whole sequences 0.50 against 0.69); seeds shifted by 1000, 0.84
against 0.94 (0.47 against 0.71).
"""
import numpy as np
import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence

import nndebug as nd
from benchmarks.real_bugs._rnn170 import BOS, PAD, TOKENS, reversal_pairs

TITLE = "Bug with returning final state in PackedLSTM?"
LINK = "https://github.com/salesforce/decaNLP/issues/9"
EXPECTED = ("CELL_STATE_REPLACED_BY_HIDDEN",)
STEPS = 600
BATCH, HIDDEN = 64, 32


class PackedLSTM(nn.Module):
    """An LSTM over a right-padded batch: sorted by length, packed, final state unsorted."""

    def __init__(self, inputs, hidden, fixed):
        super().__init__()
        self.fixed = fixed
        self.lstm = nn.LSTM(inputs, hidden, batch_first=True)

    def forward(self, x, lengths):
        sorted_lengths, order = lengths.sort(descending=True)
        back = order.argsort()
        packed = pack_padded_sequence(x[order], sorted_lengths, batch_first=True)
        _, (h, c) = self.lstm(packed)
        if self.fixed:
            return h[:, back], c[:, back]
        return h[:, back], h[:, back]          # BUG: the hidden state twice, c never used


class Reverser(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.embed = nn.Embedding(TOKENS, 16)
        self.encoder = PackedLSTM(16, HIDDEN, fixed)
        self.decoder = nn.LSTM(16, HIDDEN, batch_first=True)
        self.read_out = nn.Linear(HIDDEN, TOKENS)

    def forward(self, source, target, lengths):
        state = self.encoder(self.embed(source), lengths)
        previous = torch.cat([torch.full_like(target[:, :1], BOS), target[:, :-1]], dim=1)
        y, _ = self.decoder(self.embed(previous), state)
        return self.read_out(y)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    source, target, lengths = reversal_pairs(steps * BATCH, rng)
    test = reversal_pairs(1000, rng)
    model = Reverser(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for step in range(steps):
            rows = slice(step * BATCH, (step + 1) * BATCH)
            logits = model(source[rows], target[rows], lengths[rows])
            loss = nn.functional.cross_entropy(logits.transpose(1, 2), target[rows],
                                               ignore_index=PAD)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        right = model(*test).argmax(-1) == test[1]
        real = test[1] != PAD
        mon.held_out_token_accuracy = (right & real).sum().item() / real.sum().item()
        mon.held_out_sequence_accuracy = (right | ~real).all(dim=1).float().mean().item()
    return mon
