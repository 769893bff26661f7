"""Texts post-padded to one fixed length (what Keras' `TextVectorization(
output_sequence_length=...)` produces) and fed, unmasked, to an LSTM whose final state
classifies them: every text is followed by a long run of padding, so the final state is
what survives of the text after the LSTM has read tens of pads, and the gradient that
reaches the real characters has crossed all of them. The model barely learns.

Reported: "Can't reproduce "Text classification from scratch" example with LSTM" -
https://github.com/keras-team/keras-io/issues/2044 (with an LSTM in place of the Conv1D,
"the model doesn't learn, the accuracy stays around .50. However if I pass
`go_backwards=True` to the LSTM layer, then it learns correctly ... I believe this is due to
the fact that the `TextVectorization` layer "post"-pads the input ... whereas the LSTM
layers expects "pre"-padded inputs"). Ported to PyTorch: made-up surnames of six languages
of origin padded after the name with id 0 to 40 characters, an embedding + LSTM whose
`h_n` feeds a linear head, 32 names a batch, Adam. Fix: pad before the name (the
`pad_sequences` default), so the final state is read right after the last character.

Measured harm (held-out accuracy over 2,000 names, after 300 steps): bug 0.16 (chance: 1/6) vs
fixed 0.89; seeds + 1000: 0.16 vs 0.91.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._rnn_classifiers import (CLASSES, VOCAB, accuracy, pad,
                                                   random_batches, surnames)

TITLE = "Can't reproduce \"Text classification from scratch\" example with LSTM"
LINK = "https://github.com/keras-team/keras-io/issues/2044"
EXPECTED = ("PADDING_LEAK",)
STEPS = 300
LENGTH = 40                                   # output_sequence_length


class TextLSTM(nn.Module):
    def __init__(self, fixed, dim=32):
        super().__init__()
        self.pre_pad = fixed                  # BUG when not fixed: post-padded
        self.embedding = nn.Embedding(VOCAB, dim)
        self.lstm = nn.LSTM(dim, dim, batch_first=True)
        self.dense = nn.Linear(dim, CLASSES)

    def forward(self, names):
        ids, _ = pad(names, left=self.pre_pad, length=LENGTH)
        _, (h_n, _) = self.lstm(self.embedding(ids))
        return self.dense(h_n[-1])


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    names, labels = surnames(6000, seed=0)
    held_names, held_labels = surnames(2000, seed=1)
    model = TextLSTM(fixed)
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
