"""Shared pieces of real-bug batch 359 (neural topic models): a synthetic document-term matrix
drawn from an LDA-like generator with a Zipf background, and the held-out perplexity the
docstrings quote.

VOCAB words, TOPICS true topics; topic k puts most of its mass on its own OWN words. Every
word of a document comes from the background (Zipf over the whole vocabulary, so a few words
are common in every document) with probability BACKGROUND, else from the document's topic
mixture theta ~ Dirichlet(ALPHA). Lengths MIN_LEN..MAX_LEN. Everything is drawn with torch
after ``torch.manual_seed`` (the benchmark's seed shift moves it).
"""
import torch

VOCAB, TOPICS, OWN = 200, 6, 25
ALPHA, BACKGROUND = 0.3, 0.35
MIN_LEN, MAX_LEN = 40, 100


def corpus(n_train=1200, n_test=400):
    """(train counts, test counts): float32 document-term matrices (docs, VOCAB)."""
    topics = torch.full((TOPICS, VOCAB), 0.02)
    perm = torch.randperm(VOCAB)
    for k in range(TOPICS):
        own = perm[k * OWN:(k + 1) * OWN]
        topics[k, own] += torch.rand(OWN) * 2 + 0.5
    topics = topics / topics.sum(1, keepdim=True)
    ranks = torch.randperm(VOCAB).float() + 1
    background = 1 / ranks
    background = background / background.sum()
    n = n_train + n_test
    theta = torch.distributions.Dirichlet(torch.full((TOPICS,), ALPHA)).sample((n,))
    probs = BACKGROUND * background + (1 - BACKGROUND) * theta @ topics
    lengths = torch.randint(MIN_LEN, MAX_LEN + 1, (n,))
    words = torch.multinomial(probs, MAX_LEN, replacement=True)
    kept = (torch.arange(MAX_LEN) < lengths[:, None]).float()
    counts = torch.zeros(n, VOCAB).scatter_add_(1, words, kept)
    return counts[:n_train], counts[n_train:]


def perplexity(word_log_probs, counts):
    """exp(- total log-likelihood / total words) of count rows under per-row log-probabilities."""
    return float(torch.exp(-(counts * word_log_probs).sum() / counts.sum()))
