"""Names padded on the LEFT (the pre-padding of Keras' `pad_sequences`, or fairseq's
`left_pad_source`) handed to `pack_padded_sequence` with their true lengths: packing takes
the first `length` steps of every row, so a short name is packed as its run of pads plus
its first characters, and its last characters - here the ending that tells the language -
are cut off. Nothing fails: the GRU's final state is simply that of the wrong steps.

Reported: "Added a comment to inform the coder that pack_padded_sequence requires that
padding must be on the right" - https://github.com/facebookresearch/fairseq/pull/851 ("The
PyTorch document on pack_padded_sequence has no information regarding a requirement that
padding must be on the right"). Here made-up surnames of six languages of origin, batches
of 32 left-padded to their longest name, an embedding + GRU whose final state `h_n` feeds
a linear head, Adam. Fix: pad on the right before packing.

Measured harm (held-out accuracy over 2,000 names, after 300 steps): bug 0.56 vs fixed
0.89; seeds + 1000: 0.58 vs 0.91.
"""
import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence

import nndebug as nd
from benchmarks.real_bugs._rnn_classifiers import (CLASSES, VOCAB, accuracy, pad,
                                                   random_batches, surnames)

TITLE = ("Added a comment to inform the coder that pack_padded_sequence requires that "
         "padding must be on the right")
LINK = "https://github.com/facebookresearch/fairseq/pull/851"
EXPECTED = ("PADDING_LEAK",)
STEPS = 300


class NameGRU(nn.Module):
    def __init__(self, fixed, dim=32):
        super().__init__()
        self.left_pad = not fixed                 # BUG: pre-padded, packed as post-padded
        self.embed = nn.Embedding(VOCAB, dim, padding_idx=0)
        self.gru = nn.GRU(dim, dim, batch_first=True)
        self.head = nn.Linear(dim, CLASSES)

    def forward(self, names):
        ids, lengths = pad(names, left=self.left_pad)
        packed = pack_padded_sequence(self.embed(ids), lengths, batch_first=True,
                                      enforce_sorted=False)
        _, h_n = self.gru(packed)
        return self.head(h_n[-1])


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    names, labels = surnames(6000, seed=0)
    held_names, held_labels = surnames(2000, seed=1)
    model = NameGRU(fixed)
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
