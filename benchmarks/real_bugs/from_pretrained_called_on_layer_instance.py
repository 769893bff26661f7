"""The pretrained word vectors are loaded with ``self.embedding.from_pretrained(vectors,
freeze=...)`` on the layer built a line earlier. ``from_pretrained`` is a class method: it
builds and returns a new ``nn.Embedding`` and leaves the one it was called on untouched, so
the returned layer is thrown away and the model trains its freshly drawn random table (not
frozen either). On a small training set the pretrained vectors were what let the model
carry over to sentences whose words it never saw in training.

Reported: "Error Implementation of Embedding Layer" -
https://github.com/fenchri/edge-oriented-graph/issues/12 ("the ``from_pretrained`` method is
a class method, which does not change the ``self.embedding``, so only randomly initialized
embedding is used"; the author: "You are right, apologies for this ... The reported results
are indeed with random embeddings because of this"). Here a topic classifier trained on 160
sentences of the sonnets' words (3 topic words among 12, 40 topic words per class) and
validated every 20 steps on 400 others, reading GloVe-like vectors (a topic's words lie near
one direction) meant to stay frozen, mean-pooled, through a small MLP head. Measured (seed
0, 200 steps): the training loss ends near 0.01 in both runs, but the last validation loss
is 0.99 with the random table and 0.02 with the pretrained one (chance: 1.39). Fix:
``self.embedding = nn.Embedding.from_pretrained(vectors, freeze=True)``.
"""
import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs.glove_rows_ignore_reserved_id_offset import (CLASSES, DIM, glove_like,
                                                                     topic_corpus, word_index)

TITLE = "Error Implementation of Embedding Layer"
LINK = "https://github.com/fenchri/edge-oriented-graph/issues/12"
EXPECTED = ("PRETRAINED_WEIGHTS_NOT_LOADED",)
STEPS = 200
EVERY = 20
KEYWORDS = 40
TRAIN = 160


class Encoder(nn.Module):
    def __init__(self, vectors, fixed):
        super().__init__()
        self.embedding = nn.Embedding(len(vectors), vectors.shape[1], padding_idx=0)
        if fixed:
            self.embedding = nn.Embedding.from_pretrained(vectors, freeze=True, padding_idx=0)
        else:
            # BUG: a class method called on the instance; the new layer it returns is dropped
            self.embedding.from_pretrained(vectors, freeze=True, padding_idx=0)
        self.head = nn.Sequential(nn.Linear(vectors.shape[1], 32), nn.ReLU(),
                                  nn.Linear(32, CLASSES))

    def forward(self, ids):
        return self.head(self.embedding(ids).mean(1))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    texts, labels, topics = topic_corpus(TRAIN + 400, rng, keywords=KEYWORDS)
    index = word_index(texts)
    vectors = glove_like(topics, index, rng)
    table = torch.zeros(len(index) + 1, DIM)
    for word, i in index.items():
        table[i] = torch.from_numpy(vectors[word])
    ids = torch.tensor([[index[w] for w in text] for text in texts])
    x_train, y_train, x_val, y_val = ids[:TRAIN], labels[:TRAIN], ids[TRAIN:], labels[TRAIN:]
    model = Encoder(table, fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for done in range(1, steps + 1):
            rows = torch.from_numpy(rng.integers(TRAIN, size=32))
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x_train[rows]), y_train[rows])
            loss.backward()
            optimizer.step()
            val_loss = None
            if done % EVERY == 0:
                model.eval()
                with torch.no_grad():
                    val_loss = F.cross_entropy(model(x_val), y_val)
                model.train()
            mon.step(loss, val_loss=val_loss)
    return mon
