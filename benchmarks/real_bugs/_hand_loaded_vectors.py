"""Shared pieces of the batch-311 cases (pretrained word vectors loaded by hand into an
nn.Embedding, as first tutorials do it): a topic corpus made of the sonnets' words, a
GloVe-like "vector file" for those words, a bag-of-vectors classifier, its training loop
under nd.watch and the held-out accuracy.

The corpus: 4 topics of 40 words each; a sentence holds 3 words of its topic among
filler words of the sonnets. The training sentences draw their topic words from the first
half of each topic's list only; the held-out sentences from the whole list. A model can
only name the topic of a held-out sentence whose topic words it never saw in training
through the pretrained vectors (a topic's words lie near one direction, as related words
do in GloVe) - which is why the tutorials load them. The "vector file" lists the sonnets'
words in the order of their frequency in the sonnets (a pretraining corpus's order: the
first line is the most frequent word), each with its vector.
"""
import re
from collections import Counter

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import SONNETS
from benchmarks.real_bugs.glove_rows_ignore_reserved_id_offset import glove_like

CLASSES = 4
KEYWORDS = 40          # topic words per class (training sentences see the first half)
TOPIC_WORDS = 3        # topic words per sentence
LENGTH = 12            # words per sentence (fixed-length corpus)
DIM = 32
TRAIN, HELD_OUT = 400, 1000
STEPS = 200


def sonnet_words():
    """The sonnets' lower-case words, most frequent first (the vector file's order)."""
    with open(SONNETS, encoding="utf-8") as handle:
        counts = Counter(re.findall(r"[a-z]+", handle.read().lower()))
    return sorted(counts, key=lambda w: (-counts[w], w))


def corpus(rng, lengths=(LENGTH, LENGTH)):
    """(train texts, train labels, held-out texts, held-out labels, vector file): texts are
    lists of lower-case words, ``lengths`` the (shortest, longest) sentence; the vector
    file is a list of (word, vector) lines in the file's order."""
    words = sonnet_words()
    frequent, rest = words[:40], words[40:]          # topics never take the commonest words
    rest = [rest[i] for i in rng.permutation(len(rest))]
    topics = [rest[c * KEYWORDS:(c + 1) * KEYWORDS] for c in range(CLASSES)]
    taken = set(w for t in topics for w in t)
    filler = frequent + [w for w in rest if w not in taken]
    vectors = glove_like(topics, words, rng, dim=DIM)

    def draw(count, seen):
        texts, labels = [], []
        for _ in range(count):
            label = int(rng.integers(CLASSES))
            length = int(rng.integers(lengths[0], lengths[1] + 1))
            chosen = [topics[label][i] for i in rng.integers(seen, size=TOPIC_WORDS)]
            chosen += [filler[i] for i in rng.integers(len(filler), size=length - TOPIC_WORDS)]
            texts.append([chosen[i] for i in rng.permutation(length)])
            labels.append(label)
        return texts, torch.tensor(labels)

    train_texts, train_labels = draw(TRAIN, KEYWORDS // 2)
    held_texts, held_labels = draw(HELD_OUT, KEYWORDS)
    vector_file = [(w, vectors[w]) for w in words]
    return train_texts, train_labels, held_texts, held_labels, vector_file


class BagOfVectors(nn.Module):
    """The embedding, the mean of a sentence's word vectors (their sum divided by the
    sentence's length), a small MLP head."""

    def __init__(self, embedding):
        super().__init__()
        self.embedding = embedding
        self.head = nn.Sequential(nn.Linear(embedding.embedding_dim, 32), nn.ReLU(),
                                  nn.Linear(32, CLASSES))

    def forward(self, ids, lengths):
        return self.head(self.embedding(ids).sum(1) / lengths[:, None].float())


def train(model, optimizer, ids, lengths, labels, held, steps, rng, **watch):
    """Batches of 32 training sentences drawn at random, the held-out accuracy stored on
    the monitor (``held``: ids, lengths, labels)."""
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            rows = torch.from_numpy(rng.integers(len(ids), size=32))
            optimizer.zero_grad()
            loss = F.cross_entropy(model(ids[rows], lengths[rows]), labels[rows])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        predicted = model(held[0], held[1]).argmax(1)
    mon.held_out_accuracy = round((predicted == held[2]).float().mean().item(), 3)
    return mon
