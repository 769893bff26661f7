"""Shared pieces of the batch-123 cases (word-embedding and masked-language-model
pretraining objectives): a synthetic corpus whose words have a known meaning, skip-gram
pairs with negative sampling, and the held-out measure of embedding quality.

The corpus: 8 topics of 16 content words each, and 32 function words that every topic
uses (frequent, Zipf-distributed, like "the", "of", "a"). A sentence picks a topic and
draws 10 words, each a topic word with probability 0.55 (Zipf within the topic) or else a
function word. Id 0 is reserved (the unknown/rare word). Words are letter strings, so a
case can hold the sentences as text. Words of one topic share contexts, so a good
embedding puts them near each other: the measure is neighbour precision - for each content
word, the share of its 5 nearest content words (cosine) from its own topic (chance:
15/127 = 0.12). The topics are never shown to the training.
"""
import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

TOPICS, TOPIC_WORDS, FUNCTION_WORDS = 8, 16, 32
CONTENT = TOPICS * TOPIC_WORDS
VOCAB = 1 + FUNCTION_WORDS + CONTENT          # id 0: the unknown word
SENTENCE = 10
TOPIC_SHARE = 0.55
WINDOW = 2
NEIGHBOURS = 5
LETTERS = "bcdfghjklmnprstvwz"
VOWELS = "aeiou"


def zipf(n, exponent):
    p = 1.0 / np.arange(1, n + 1) ** exponent
    return p / p.sum()


def words(rng):
    """VOCAB distinct lower-case strings: '<unk>', then the function words (three of them
    one letter long, as "a", "i", "o" are), then the topics' content words."""
    seen, out = set(), ["<unk>", "a", "i", "o"]
    seen.update(out)
    while len(out) < VOCAB:
        length = 2 + int(rng.integers(4)) if len(out) <= FUNCTION_WORDS else 4 + int(
            rng.integers(4))
        w = "".join(rng.choice(list(LETTERS if k % 2 == 0 else VOWELS))
                    for k in range(length))
        if w not in seen:
            seen.add(w)
            out.append(w)
    return out


def sentences(count, rng):
    """(count, SENTENCE) int64 ids and each sentence's topic."""
    function_p, topic_p = zipf(FUNCTION_WORDS, 1.0), zipf(TOPIC_WORDS, 0.5)
    topic = rng.integers(TOPICS, size=count)
    from_topic = rng.random((count, SENTENCE)) < TOPIC_SHARE
    content = 1 + FUNCTION_WORDS + topic[:, None] * TOPIC_WORDS + rng.choice(
        TOPIC_WORDS, size=(count, SENTENCE), p=topic_p)
    function = 1 + rng.choice(FUNCTION_WORDS, size=(count, SENTENCE), p=function_p)
    return torch.from_numpy(np.where(from_topic, content, function)), torch.from_numpy(topic)


def skipgram_pairs(ids, window=WINDOW):
    """(centre, context) id pairs, every pair within ``window`` in each row of ``ids``."""
    centre, context = [], []
    for offset in range(1, window + 1):
        for a, b in ((ids[:, :-offset], ids[:, offset:]), (ids[:, offset:], ids[:, :-offset])):
            centre.append(a.reshape(-1))
            context.append(b.reshape(-1))
    return torch.cat(centre), torch.cat(context)


def noise_distribution(ids, vocab=VOCAB):
    """word2vec's negative-sampling distribution: unigram counts to the 3/4 power."""
    counts = torch.bincount(ids.reshape(-1), minlength=vocab).double()
    p = counts ** 0.75
    return (p / p.sum()).float()


class SkipGram(nn.Module):
    """word2vec's two tables: the centre words' vectors (the embedding kept) and the
    context words' vectors (used by the loss only)."""

    def __init__(self, vocab=VOCAB, dim=32):
        super().__init__()
        self.centre = nn.Embedding(vocab, dim)
        self.context = nn.Embedding(vocab, dim)
        nn.init.uniform_(self.centre.weight, -0.5, 0.5)
        nn.init.uniform_(self.context.weight, -0.5, 0.5)

    def forward(self, centre, context, negatives):
        """(positive scores (B,), negative scores (B, K))."""
        u = self.centre(centre)
        positive = (u * self.context(context)).sum(-1)
        negative = torch.bmm(self.context(negatives), u.unsqueeze(2)).squeeze(2)
        return positive, negative


def sgns_loss(positive, negative):
    """Skip-gram negative sampling: -log s(u.v) - sum_k log s(-u.v_k), mean over pairs."""
    return -(F.logsigmoid(positive) + F.logsigmoid(-negative).sum(1)).mean()


def neighbour_precision(vectors):
    """Share of each content word's NEIGHBOURS nearest content words (cosine) that share
    its topic - the held-out measure (the topics never reach the training)."""
    with torch.no_grad():
        v = F.normalize(vectors[1 + FUNCTION_WORDS:].float(), dim=1)
        similarity = v @ v.T
        similarity.fill_diagonal_(-2.0)
        nearest = similarity.topk(NEIGHBOURS, dim=1).indices
        topic = torch.arange(CONTENT) // TOPIC_WORDS
        return round((topic[nearest] == topic[:, None]).float().mean().item(), 3)


def cooccurrences(ids, window=5):
    """GloVe's co-occurrence counts, each pair within ``window`` weighted 1/distance (both
    orders): the nonzero entries as (i, j, X_ij)."""
    counts = torch.zeros(VOCAB, VOCAB, dtype=torch.float64)
    for distance in range(1, window + 1):
        a, b = ids[:, :-distance].reshape(-1), ids[:, distance:].reshape(-1)
        weight = torch.full(a.shape, 1.0 / distance, dtype=torch.float64)
        counts.index_put_((a, b), weight, accumulate=True)
        counts.index_put_((b, a), weight, accumulate=True)
    i, j = counts.nonzero(as_tuple=True)
    return i, j, counts[i, j].float()


class GloVe(nn.Module):
    """GloVe's focal and context vectors and biases, all drawn from U(-1, 1) (as the
    reported repository does)."""

    def __init__(self, vocab=VOCAB, dim=32):
        super().__init__()
        self.focal, self.context = nn.Embedding(vocab, dim), nn.Embedding(vocab, dim)
        self.focal_bias, self.context_bias = nn.Embedding(vocab, 1), nn.Embedding(vocab, 1)
        for parameter in self.parameters():
            nn.init.uniform_(parameter, -1, 1)

    def forward(self, i, j):
        return (self.focal(i) * self.context(j)).sum(1) + self.focal_bias(i).squeeze(1) + \
            self.context_bias(j).squeeze(1)

    def vectors(self):
        """The embedding GloVe hands out: focal plus context vector of each word."""
        return self.focal.weight + self.context.weight
