"""Shared pieces of the batch-296 cases (beginner sentence-embedding training written by
hand, SBERT-style): synthetic "sentences" with a graded 0-5 similarity score per pair, a
small transformer sentence encoder with masked mean pooling, and the held-out metric.

The data: 60 word ids (1..60, 0 is the padding) in 6 topics; each word has a hidden
meaning vector (its topic's centre plus its own noise). A sentence is 3-14 words, most of
them from one topic; its meaning is the mean of its words' meanings. A pair is a sentence
and either an edited copy of it (some words swapped for others of the topic, the order
shuffled, a word dropped or added) or another sentence; its gold score is
5 * max(0, cosine of the two meanings), rounded to 0.1 - an STS-like 0-5 scale.

Held-out quality is the Spearman correlation between the model's cosine similarity of the
two sentences and the gold score over 600 held-out pairs (as the STS benchmark is read).
"""
import math

import numpy as np
import torch
from torch import nn

WORDS, TOPICS, MEANING = 60, 6, 8
PAD = 0
LONGEST = 16


def _sentence(rng, topic):
    length = int(rng.integers(3, 15))
    own = 1 + topic * (WORDS // TOPICS) + rng.integers(0, WORDS // TOPICS, length)
    other = rng.integers(1, WORDS + 1, length)
    return np.where(rng.random(length) < 0.75, own, other)


def _edited(rng, words, topic):
    words = words.copy()
    swap = rng.random(len(words)) < rng.random()
    words[swap] = 1 + topic * (WORDS // TOPICS) + rng.integers(0, WORDS // TOPICS, swap.sum())
    words = words[rng.permutation(len(words))]
    if len(words) > 3 and rng.random() < 0.3:
        words = words[1:]
    if len(words) < 14 and rng.random() < 0.3:
        words = np.append(words, rng.integers(1, WORDS + 1))
    return words


def _pad(sentences):
    ids = torch.zeros(len(sentences), LONGEST, dtype=torch.int64)
    for row, words in enumerate(sentences):
        ids[row, :len(words)] = torch.from_numpy(words.astype(np.int64))
    return ids


def pairs(count=3000, held_out=600, seed=0):
    """(train, held): each (ids_a, ids_b, score) with ids (N, 16) padded with 0 and score
    (N,) float32 in [0, 5]."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(TOPICS, MEANING))
    meaning = np.zeros((WORDS + 1, MEANING))
    for word in range(1, WORDS + 1):
        meaning[word] = centres[(word - 1) // (WORDS // TOPICS)] + 0.8 * rng.normal(size=MEANING)
    firsts, seconds, scores = [], [], []
    for _ in range(count + held_out):
        topic = int(rng.integers(TOPICS))
        first = _sentence(rng, topic)
        if rng.random() < 0.5:
            second = _edited(rng, first, topic)
        else:
            second = _sentence(rng, int(rng.integers(TOPICS)))
        ma, mb = meaning[first].mean(0), meaning[second].mean(0)
        cosine = ma @ mb / (np.linalg.norm(ma) * np.linalg.norm(mb))
        firsts.append(first)
        seconds.append(second)
        scores.append(round(5 * max(0.0, cosine), 1))
    a, b = _pad(firsts), _pad(seconds)
    s = torch.tensor(scores, dtype=torch.float32)
    return (a[:count], b[:count], s[:count]), (a[count:], b[count:], s[count:])


def trimmed(ids):
    """A batch cut to its longest sentence (what a tokenizer's padding=True gives)."""
    return ids[:, :max(1, int((ids != PAD).sum(1).max()))]


class Encoder(nn.Module):
    """Word + position embeddings, one transformer layer (padding masked in the attention),
    and mean pooling over the real words (the attention mask as pooling weights)."""

    def __init__(self, dim=32):
        super().__init__()
        self.dim = dim
        self.embed = nn.Embedding(WORDS + 1, dim, padding_idx=PAD)
        self.position = nn.Embedding(LONGEST, dim)
        layer = nn.TransformerEncoderLayer(dim, 2, dim_feedforward=64, dropout=0.0,
                                           batch_first=True)
        self.layers = nn.TransformerEncoder(layer, 1, enable_nested_tensor=False)

    def tokens(self, ids):
        padded = ids == PAD
        x = self.embed(ids) * math.sqrt(self.dim) + self.position(torch.arange(ids.shape[1]))
        return self.layers(x, src_key_padding_mask=padded), padded

    def forward(self, ids):
        hidden, padded = self.tokens(ids)
        real = (~padded).unsqueeze(-1).float()
        return (hidden * real).sum(1) / real.sum(1).clamp(min=1)


def spearman(x, y):
    def ranks(v):
        order = torch.argsort(v)
        r = torch.empty_like(v)
        r[order] = torch.arange(len(v), dtype=v.dtype)
        return r
    rx, ry = ranks(x.double()), ranks(y.double())
    rx, ry = rx - rx.mean(), ry - ry.mean()
    return float((rx * ry).sum() / (rx.norm() * ry.norm()))


@torch.no_grad()
def held_out_spearman(embed_a, embed_b, held, batch_size=32):
    """Spearman of cos(embed_a(first), embed_b(second)) against the gold scores, the pairs
    encoded in batches of 32, each padded to its longest sentence."""
    a, b, score = held
    cosines = []
    for start in range(0, len(a), batch_size):
        u = embed_a(trimmed(a[start:start + batch_size]))
        v = embed_b(trimmed(b[start:start + batch_size]))
        cosines.append(torch.cosine_similarity(u, v, dim=-1))
    return spearman(torch.cat(cosines), score)
