"""A text CNN over pretrained word vectors whose preprocessing turns every review into a
(words x dimensions) matrix - and, through a test lookup left in the loop, writes the
vector of the word "dog" for EVERY word of every review. Each review becomes the same row
repeated as many times as it has words, zero rows after it (the padding): all the network
can still see is the review's length, which says nothing of its class. The loss settles a
little under ln 2 and held-out accuracy stays at chance, while the convolutions, the
pooling and the optimizer all work as they should.

Reported: "Fix Neural Network Comparison Notebook" - https://github.com/CPSSD/LUCAS/pull/126
("the convolutional networks were performing extremely badly ... the notebook contained
code that was using the embedding for 'dog' for every word in every review"; earlier PRs of
the project had found the embeddings "doing alarmingly bad"). Here the word-id sentences of
``_kim313`` (4-40 words zero-padded to 48, the class set by the order of one planted cue
bigram), each word looked up in a fixed table of 32-dimensional "pretrained" vectors (static,
as in the report), a Kim-style CNN (Conv1d over the vector dimensions as channels, widths
3, 4, 5, 16 filters each, max-over-time), Adam 3e-3, batches of 64, 300 steps.

Fix: look each word's own vector up (``table[word]``, not ``table[DOG]``).

Measured (held-out accuracy, 1,000 sentences): 0.49 with the bug, 1.00 fixed;
seeds + 1000: 0.51 vs 1.00.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._kim313 import VOCAB, data

TITLE = "Fix Neural Network Comparison Notebook"
LINK = "https://github.com/CPSSD/LUCAS/pull/126"
EXPECTED = ("UNKNOWN_ID_DOMINATES_INPUTS", "CONSTANT_FEATURES")
STEPS = 300
DIM = 32
DOG = 17                                        # the id of "dog" in the vocabulary


def pretrained_vectors():
    """A fixed table standing in for word2vec: one unit-scale vector per word, zeros for
    the padding id 0."""
    generator = torch.Generator().manual_seed(313)
    table = torch.randn(VOCAB, DIM, generator=generator)
    table[0] = 0
    return table


def review_matrices(ids, table, fixed):
    """(count, 48, DIM) float inputs: each word's vector, zero rows for the padding."""
    if fixed:
        return table[ids]
    real = (ids != 0).unsqueeze(-1).float()
    return real * table[DOG]                    # BUG: the vector for "dog" at every word


class TextCNN(nn.Module):
    def __init__(self, filters=16, widths=(3, 4, 5)):
        super().__init__()
        self.convs = nn.ModuleList(nn.Conv1d(DIM, filters, k) for k in widths)
        self.decoder = nn.Linear(filters * len(widths), 2)

    def forward(self, vectors):                 # (batch, length, DIM)
        x = vectors.transpose(1, 2)             # (batch, DIM, length)
        pooled = [torch.relu(conv(x)).amax(dim=2) for conv in self.convs]
        return self.decoder(torch.cat(pooled, dim=1))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (ids, labels, _), (held_ids, held_labels, _) = data(seed=0)
    table = pretrained_vectors()
    x, held_x = review_matrices(ids, table, fixed), review_matrices(held_ids, table, fixed)
    model = TextCNN()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(x), steps, batch_size=64, seed=0):
            optimizer.zero_grad()
            loss = loss_fn(model(x[index]), labels[index])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        mon.held_out_accuracy = (model(held_x).argmax(-1) == held_labels).float().mean().item()
    return mon
