"""An LSTM text classifier fed batches padded to their longest member, time-major, whose
feature is the output at the batch's last time step (`hdn[-1, :, :]`): for every name
shorter than the longest in its batch that step is padding, so the classifier reads what is
left of the name after the LSTM has read a run of pads - and how long that run is depends
on which other names share the batch.

Reported: "Last timestep output in the text classifier wrong?" -
https://github.com/keitakurita/practical-torchtext/issues/5 ("The `hdn[-1,:,:]` doesn't
seem to return the last timestep output for variable length sequences. E.g. If there are
two sentences in my batch, one of length 20 and another of length 10, then -1 would slice
the correct output for first sentence but not for second sentence"; the author answered that
torchtext pads the inputs, so it was no worry). Here made-up surnames of six languages of
origin (the language shows mostly in the ending), 32 names a batch padded with id 0, an
embedding + LSTM + linear head, Adam. Fix: read each name's output at its own last
character (`hdn[lengths - 1, range(B)]`).

Measured harm (held-out accuracy over 2,000 names in batches of 100, after 300 steps):
bug 0.84 vs fixed 0.89; seeds + 1000: 0.81 vs 0.91.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._rnn_classifiers import (CLASSES, VOCAB, accuracy, pad,
                                                   random_batches, surnames)

TITLE = "Last timestep output in the text classifier wrong?"
LINK = "https://github.com/keitakurita/practical-torchtext/issues/5"
EXPECTED = ("PADDING_LEAK",)
STEPS = 300


class SimpleLSTMBaseline(nn.Module):
    def __init__(self, fixed, dim=32):
        super().__init__()
        self.fixed = fixed
        self.embedding = nn.Embedding(VOCAB, dim, padding_idx=0)
        self.encoder = nn.LSTM(dim, dim)                 # time-major, as torchtext's default
        self.predictor = nn.Linear(dim, CLASSES)

    def forward(self, names):
        seq, lengths = pad(names)
        hdn, _ = self.encoder(self.embedding(seq.t()))   # (T, B, dim)
        if self.fixed:
            feature = hdn[lengths - 1, torch.arange(len(names))]
        else:
            feature = hdn[-1, :, :]                      # BUG: a pad for all but the longest
        return self.predictor(feature)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    names, labels = surnames(6000, seed=0)
    held_names, held_labels = surnames(2000, seed=1)
    model = SimpleLSTMBaseline(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for rows in random_batches(len(names), steps):
            optimizer.zero_grad()
            loss = loss_fn(model([names[r] for r in rows]), labels[rows])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    mon.held_out_accuracy = accuracy(model, held_names, held_labels)
    return mon
