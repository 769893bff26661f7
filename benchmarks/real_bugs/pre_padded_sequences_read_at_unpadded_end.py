"""Sequences padded at the FRONT (pre-padding, as Keras' `pad_sequences` does by default)
whose classification is read from the RNN output at index `len(sequence) - 1` - where a
sequence would end had it been padded at the back. With pre-padding that index lies
`padding` steps before the real end: a short sequence is classified from pads or from its
first few elements, and never from its last ones.

Reported: "bug fix related to output sequence" - https://github.com/Atcold/NYU-DLSP20/pull/19
("we should pick the last element of output sequence, because input is pre-padded with
0s, not post-padded"; "The reason why the old code works is that number of zero paddings
are small"; the same read, left in the evaluation, made "the accuracy in the model
evaluation block very low", https://github.com/Atcold/NYU-DLSP20/pull/814). Here made-up
surnames of six languages of origin (the language shows mostly in the ending) instead of
the notebook's temporal-order sequences, 32 a batch pre-padded with id 0 to the longest,
an embedding + batch-first LSTM + linear head, Adam. Fix: `output[:, -1, :]`.

Measured harm (held-out accuracy over 2,000 names in batches of 100, after 300 steps):
bug 0.58 vs fixed 0.90; seeds + 1000: 0.59 vs 0.89.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._rnn_classifiers import (CLASSES, VOCAB, accuracy, pad,
                                                   random_batches, surnames)

TITLE = "bug fix related to output sequence"
LINK = "https://github.com/Atcold/NYU-DLSP20/pull/19"
EXPECTED = ("PADDING_LEAK",)
STEPS = 300


class SimpleLSTM(nn.Module):
    def __init__(self, fixed, dim=32):
        super().__init__()
        self.fixed = fixed
        self.embedding = nn.Embedding(VOCAB, dim)
        self.lstm = nn.LSTM(dim, dim, batch_first=True)
        self.linear = nn.Linear(dim, CLASSES)

    def forward(self, names):
        data, lengths = pad(names, left=True)            # pre-padded
        output, _ = self.lstm(self.embedding(data))
        if self.fixed:
            output = output[:, -1, :]
        else:
            sequence_end = lengths - 1                   # BUG: the end of a POST-padded row
            output = output[torch.arange(data.shape[0]), sequence_end, :]
        return self.linear(output)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    names, labels = surnames(6000, seed=0)
    held_names, held_labels = surnames(2000, seed=1)
    model = SimpleLSTM(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    criterion = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for rows in random_batches(len(names), steps):
            optimizer.zero_grad()
            loss = criterion(model([names[r] for r in rows]), labels[rows])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    mon.held_out_accuracy = accuracy(model, held_names, held_labels)
    return mon
