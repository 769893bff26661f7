"""A tutorial TextCNN (Kim-style: a (width x embedding) Conv2d per filter width 3, 4, 5,
max-pooled over the sentence, a linear decoder) whose convolutions are created INSIDE
forward, ``nn.Conv2d(1, filters, (width, embed))(x)`` for each width on every call: every
batch meets brand-new random filters, which belong to no module and no optimizer. Only the
embedding and the decoder train, on features that are redrawn at each step, so the loss
hardly falls and held-out predictions are close to coin flips (and change from call to
call).

Reported: "doubts about the TextCNN Code" -
https://github.com/graykode/nlp-tutorial/issues/33 (the issue quotes the tutorial's
forward, which for each filter size runs ``conv = nn.Conv2d(1, num_filters, (filter_size,
embedding_size), bias=True)(embedded_chars)``; the tutorial's TextCNN now builds its
filters once, in an ``nn.ModuleList`` in __init__). Here the word-id sentences of
``_kim313`` (4-40 words padded with 0 to 48, the class set by the order of one planted cue
bigram), embedding 32, 3 x 16 filters, Adam 3e-3, batches of 64, 300 steps.

Fix: build the convolutions once in __init__ (``nn.ModuleList``) and call them in forward.

Measured (held-out accuracy, 1,000 sentences): 0.50 with the bug, 1.00 fixed;
seeds + 1000: 0.49 vs 1.00.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._kim313 import VOCAB, accuracy, data

TITLE = "doubts about the TextCNN Code"
LINK = "https://github.com/graykode/nlp-tutorial/issues/33"
EXPECTED = ("UNREGISTERED_PARAMETERS",)
STEPS = 300
EMBED, FILTERS, WIDTHS = 32, 16, (3, 4, 5)


class TextCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(VOCAB, EMBED, padding_idx=0)
        self.decoder = nn.Linear(FILTERS * len(WIDTHS), 2)

    def filters(self):
        # BUG: new, untrained convolutions on every forward call
        return [nn.Conv2d(1, FILTERS, (k, EMBED)) for k in WIDTHS]

    def forward(self, ids):
        x = self.embedding(ids).unsqueeze(1)              # (batch, 1, length, embed)
        pooled = [torch.relu(conv(x)).squeeze(3).amax(dim=2) for conv in self.filters()]
        return self.decoder(torch.cat(pooled, dim=1))


class FixedTextCNN(TextCNN):
    """The twin: the same network with its filters built once and registered."""
    def __init__(self):
        super().__init__()
        self.convs = nn.ModuleList(nn.Conv2d(1, FILTERS, (k, EMBED)) for k in WIDTHS)

    def filters(self):
        return self.convs


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (ids, labels, _), (held_ids, held_labels, _) = data(seed=0)
    model = FixedTextCNN() if fixed else TextCNN()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(ids), steps, batch_size=64, seed=0):
            optimizer.zero_grad()
            loss = loss_fn(model(ids[index]), labels[index])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, held_ids, held_labels)
    return mon
