"""Pieces real-bug batch 240 (beginner autoencoders and denoising autoencoders from first
tutorials) shares: the 8x8 digits as flat (N, 64) vectors in [0, 1] split into training
and held-out rows, their mini-batches, and a small synthetic user-by-item rating matrix
for a rating autoencoder. Each case keeps its own model and its own bug."""
import torch

from benchmarks.real_bugs._common import classification, index_batches

HELD_OUT = 512


def digits():
    """Training and held-out digits, (N, 64) float32 in [0, 1]."""
    x, _ = classification()
    return x[:-HELD_OUT], x[-HELD_OUT:]


def digit_batches(x, steps, batch_size=64):
    """``steps`` shuffled mini-batches of rows of ``x``, reshuffled every epoch."""
    for index in index_batches(len(x), steps, batch_size):
        yield x[index]


def ratings(users=600, items=100, rank=3, density=0.3, held_share=0.15):
    """A rating matrix with low-rank taste structure, 1-5 stars, 30% of it observed (drawn
    from torch's generator: seed it first). Returns (train, stars, held): ``train`` is
    (users, items) with the training ratings and 0 where none is given (the usual
    "0 = unrated" input of a rating autoencoder), ``stars`` every true rating, ``held`` a
    bool mask of the observed ratings kept out of ``train`` for scoring."""
    u, v = torch.randn(users, rank), torch.randn(items, rank)
    stars = (3 + 0.8 * (u @ v.t()) + 0.3 * torch.randn(users, items)).round().clamp(1, 5)
    seen = torch.rand(users, items) < density
    held = seen & (torch.rand(users, items) < held_share)
    train = torch.where(seen & ~held, stars, torch.zeros(()))
    return train, stars, held
