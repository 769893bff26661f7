"""Shared pieces of real-bug batch 320 (beginner batch-axis and sequence-axis mistakes in
recurrent and attention models): the 8x8 digits split into training and held-out rows,
random token sequences for a small sequence autoencoder, and ascending-or-shuffled token
sequences for an order-sensitive transformer classifier."""
import numpy as np
import torch

from benchmarks.real_bugs._reg169 import accuracy, split  # noqa: F401  (re-exported)


def reversal_data(rows, length=6, vocab=10, seed=0):
    """``rows`` random token sequences (ids 2..vocab+1, with 0 padding-free and 1 the start
    id) and their reversals: (src (rows, length), tgt (rows, length))."""
    rng = np.random.default_rng(seed)
    src = torch.from_numpy(rng.integers(2, vocab + 2, size=(rows, length))).long()
    return src, src.flip(1)


def token_accuracy(logits, targets):
    """Share of target tokens predicted right from (B, T, V) logits."""
    return round((logits.argmax(-1) == targets).float().mean().item(), 3)


def sortedness_data(rows, length=8, vocab=16, seed=0):
    """``rows`` token sequences (ids 0..vocab-1) and labels: half of them in ascending
    order (label 1), the other half the same kind of draw shuffled (label 0). Only the
    order of the tokens tells the classes apart."""
    rng = np.random.default_rng(seed)
    tokens = np.sort(rng.integers(0, vocab, size=(rows, length)), axis=1)
    labels = rng.integers(0, 2, size=rows)
    for row in np.flatnonzero(labels == 0):
        while np.all(np.diff(tokens[row]) >= 0):
            tokens[row] = rng.permutation(tokens[row])
    return torch.from_numpy(tokens).long(), torch.from_numpy(labels).long()

