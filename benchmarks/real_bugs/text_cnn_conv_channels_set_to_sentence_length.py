"""A first text CNN that gives each ``nn.Conv1d`` the padded sentence length as its
``in_channels`` and feeds it the embedded batch as it comes out of ``nn.Embedding``,
(batch, words, embedding), without the permute: Conv1d reads axis 1 as channels, so the 48
word POSITIONS become the input channels and the filters (widths 3, 4, 5) slide along the
32 embedding features, whose order means nothing. Every shape matches and the loss falls,
but each filter weight is bound to one sentence position: the cue bigram is only learnt
where the training sentences happened to hold it, and the "max-over-time" pooling is taken
over embedding features instead of over the sentence.

Reported: "Wrong convolution" -
https://github.com/FernandoLpz/Text-Classification-CNN-PyTorch/issues/3 ("The convolution
method in function forward is wrong, x=x.permute(0,2,1)"; a second user: "accordingly, the
in-channel should be embedding size as well"; the tutorial's TextClassifier builds its
Conv1d layers with the sequence length as in_channels). Here the word-id sentences of
``_kim313`` (4-40 words padded with 0 to 48, the class set by the order of one planted cue
bigram), embedding 32, 3 x 16 filters, max-pooled, Adam 3e-3, batches of 64, 300 steps.

Fix: ``x = x.permute(0, 2, 1)`` before the convolutions, with ``in_channels`` = the
embedding size.

Measured (held-out accuracy, 1,000 sentences): 0.69 with the bug, 1.00 fixed;
seeds + 1000: 0.63 vs 1.00.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._kim313 import LENGTH, VOCAB, accuracy, data

TITLE = "Wrong convolution"
LINK = "https://github.com/FernandoLpz/Text-Classification-CNN-PyTorch/issues/3"
EXPECTED = ("LAYOUT_NOT_TRANSPOSED",)
STEPS = 300


class TextCNN(nn.Module):
    def __init__(self, fixed, embed=32, filters=16, widths=(3, 4, 5)):
        super().__init__()
        self.fixed = fixed
        self.embedding = nn.Embedding(VOCAB, embed, padding_idx=0)
        # BUG (fixed=False): in_channels = the padded sentence length
        channels = embed if fixed else LENGTH
        self.convs = nn.ModuleList(nn.Conv1d(channels, filters, k) for k in widths)
        self.decoder = nn.Linear(filters * len(widths), 2)

    def forward(self, ids):
        x = self.embedding(ids)                           # (batch, length, embed)
        if self.fixed:
            x = x.permute(0, 2, 1)                        # (batch, embed, length)
        pooled = [torch.relu(conv(x)).amax(dim=2) for conv in self.convs]
        return self.decoder(torch.cat(pooled, dim=1))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (ids, labels, _), (held_ids, held_labels, _) = data(seed=0)
    model = TextCNN(fixed)
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
