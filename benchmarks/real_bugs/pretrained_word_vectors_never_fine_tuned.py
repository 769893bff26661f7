"""Pretrained word vectors are handed to the model as a constant lookup table: they never
get a gradient step. The vectors are general-purpose (they were not trained for this task),
so the topic words of the task are no closer to each other than to any other word, and a
head on top of fixed vectors cannot make them so: the model stays far from what the same
network learns once the vectors are fine-tuned.

Reported: "Underperformance of the Window and RNN models" -
https://github.com/roypan/CS224n/issues/1 ("The pretrained word embeddings do not get
updated." - replacing the constant with ``tf.Variable(self.pretrained_embeddings)`` "will
solve the problem. The accuracy gain is more than 10%"; the author: "Thanks a lot for
pointing out the error!"). The PyTorch spelling of the same mistake is
``nn.Embedding.from_pretrained(vectors)``, whose ``freeze`` defaults to True. Here a topic
classifier over sentences of the sonnets' words (3 topic words among 12) reads
16-dimensional vectors pretrained on the sonnets themselves (an SVD of their word
co-occurrence PPMI matrix, as GloVe and LSA vectors are made: general-purpose, blind to the
task's topics), mean-pooled, through a small MLP head.
Measured (seed 0, 200 steps): the last 20 steps' mean loss is 1.09 frozen and 0.20
fine-tuned (chance: 1.39). Fix: ``from_pretrained(vectors, freeze=False)``.
"""
import re

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import SONNETS
from benchmarks.real_bugs.glove_rows_ignore_reserved_id_offset import (CLASSES, topic_corpus,
                                                                     word_index)

TITLE = "Underperformance of the Window and RNN models"
LINK = "https://github.com/roypan/CS224n/issues/1"
EXPECTED = ("FROZEN_PARAMETERS",)
STEPS = 200
DIM = 16


def pretrained_vectors(index, dim=DIM):
    """Rows for the ids of ``index`` (row 0, padding, zero): the top ``dim`` singular vectors
    of the sonnets' positive PMI matrix (co-occurrence within 2 words), scaled by the root of
    their singular values."""
    with open(SONNETS, encoding="utf-8") as handle:
        text = re.findall(r"[a-z]+", handle.read().lower())
    vocab = sorted(set(text))
    where = {w: i for i, w in enumerate(vocab)}
    seq = np.array([where[w] for w in text])
    counts = np.zeros((len(vocab), len(vocab)))
    for d in (1, 2):
        np.add.at(counts, (seq[:-d], seq[d:]), 1)
        np.add.at(counts, (seq[d:], seq[:-d]), 1)
    expected = counts.sum(1, keepdims=True) * counts.sum(0, keepdims=True) / counts.sum()
    with np.errstate(divide="ignore", invalid="ignore"):
        ppmi = np.nan_to_num(np.maximum(np.log(counts / expected), 0), posinf=0.0)
    u, s, _ = np.linalg.svd(ppmi)
    vectors = u[:, :dim] * np.sqrt(s[:dim])
    vectors = vectors / vectors.std()
    table = torch.zeros(len(index) + 1, dim)
    for word, i in index.items():
        table[i] = torch.tensor(vectors[where[word]], dtype=torch.float32)
    return table


class Tagger(nn.Module):
    def __init__(self, vectors, fixed):
        super().__init__()
        # BUG (unfixed): from_pretrained freezes the table unless told otherwise
        self.embed = nn.Embedding.from_pretrained(vectors, freeze=not fixed, padding_idx=0)
        self.head = nn.Sequential(nn.Linear(vectors.shape[1], 32), nn.ReLU(),
                                  nn.Linear(32, CLASSES))

    def forward(self, ids):
        return self.head(self.embed(ids).mean(1))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    texts, labels, _ = topic_corpus(2000, rng)
    index = word_index(texts)
    ids = torch.tensor([[index[w] for w in text] for text in texts])
    model = Tagger(pretrained_vectors(index), fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for step in range(steps):
            rows = torch.from_numpy(rng.integers(len(ids), size=32))
            optimizer.zero_grad()
            loss = F.cross_entropy(model(ids[rows]), labels[rows])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
