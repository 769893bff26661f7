"""Pretrained word vectors are copied into the embedding matrix at the word's rank in the
tokenizer's word index, but the sequences the model reads hold the rank plus 3 (ids 0, 1, 2
are reserved for padding, the start token and out-of-vocabulary words). Every id then looks
up the vector of the word three ranks further down the list, and the embedding is frozen as
the pretrained layer it was meant to be: the model reads each word as another word.

Reported: "6.1-using-word-embeddings - There seems to be a bug" -
https://github.com/fchollet/deep-learning-with-python-notebooks/issues/145 (the IMDB
sequences are offset by 3 from ``imdb.get_word_index()``; "When creating the embedding
matrix, the indices should be shifted by 3. Doing so results in a 20% accuracy increase on
validation data"). Here a topic classifier over sentences of the sonnets' words (3 topic
words among 12) reads GloVe-like vectors (a topic's words lie near one direction), frozen,
mean-pooled, through a small MLP head. Measured (seed 0, 200 steps): the last 20 steps'
mean loss is 1.02 with the rows misplaced and 0.02 fixed (chance: 1.39).
Fix: write each vector at the id the sequences use (``matrix[rank + 3] = vector``).
"""
import re

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import SONNETS

TITLE = "6.1-using-word-embeddings - There seems to be a bug"
LINK = "https://github.com/fchollet/deep-learning-with-python-notebooks/issues/145"
EXPECTED = ("EMBEDDING_ROWS_MISALIGNED_WITH_IDS",)
STEPS = 200
CLASSES = 4
KEYWORDS = 12          # topic words per class
LENGTH = 12            # words per sentence, 3 of them topic words
DIM = 32
INDEX_FROM = 3         # 0 padding, 1 start, 2 out-of-vocabulary: words from 3 (as in IMDB)


def topic_corpus(count, rng, keywords=KEYWORDS):
    """(texts, labels, topics): sentences of LENGTH words, 3 drawn from the label's topic
    words and the rest from the other words of the sonnets."""
    with open(SONNETS, encoding="utf-8") as handle:
        words = sorted(set(re.findall(r"[a-z]+", handle.read().lower())))
    words = [words[i] for i in rng.permutation(len(words))]
    topics = [words[c * keywords:(c + 1) * keywords] for c in range(CLASSES)]
    filler = words[CLASSES * keywords:]
    texts, labels = [], []
    for _ in range(count):
        label = int(rng.integers(CLASSES))
        chosen = [topics[label][i] for i in rng.integers(keywords, size=3)]
        chosen += [filler[i] for i in rng.integers(len(filler), size=LENGTH - 3)]
        texts.append([chosen[i] for i in rng.permutation(LENGTH)])
        labels.append(label)
    return texts, torch.tensor(labels), topics


def glove_like(topics, vocabulary, rng, dim=DIM):
    """word -> vector: a topic's words near one direction (as related words lie in GloVe),
    every other word a random vector of the same length."""
    centres = rng.normal(size=(CLASSES, dim))
    vectors = {w: rng.normal(size=dim) for w in vocabulary}
    for c, words in enumerate(topics):
        for w in words:
            vectors[w] = centres[c] + 0.5 * rng.normal(size=dim)
    return {w: (v / np.linalg.norm(v) * np.sqrt(dim)).astype(np.float32)
            for w, v in vectors.items()}


def word_index(texts):
    """The tokenizer's index: words by frequency, ranks from 1."""
    counts = {}
    for text in texts:
        for w in text:
            counts[w] = counts.get(w, 0) + 1
    ranked = sorted(counts, key=lambda w: (-counts[w], w))
    return {w: r + 1 for r, w in enumerate(ranked)}


class Classifier(nn.Module):
    def __init__(self, matrix):
        super().__init__()
        self.embed = nn.Embedding.from_pretrained(matrix, freeze=True, padding_idx=0)
        self.head = nn.Sequential(nn.Linear(matrix.shape[1], 32), nn.ReLU(),
                                  nn.Linear(32, CLASSES))

    def forward(self, ids):
        return self.head(self.embed(ids).mean(1))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    texts, labels, topics = topic_corpus(2000, rng)
    index = word_index(texts)
    vectors = glove_like(topics, index, rng)
    # the sequences, as the dataset stores them: a start token, then rank + 3 per word
    ids = torch.tensor([[1] + [index[w] + INDEX_FROM for w in text] for text in texts])
    matrix = torch.zeros(len(index) + INDEX_FROM + 1, DIM)
    for word, rank in index.items():
        row = rank + INDEX_FROM if fixed else rank   # BUG (unfixed): the rank, not the id
        if row < len(matrix):
            matrix[row] = torch.from_numpy(vectors[word])
    model = Classifier(matrix)
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
