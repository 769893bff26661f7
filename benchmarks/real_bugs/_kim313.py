"""Word-id "reviews" for the batch-313 text-CNN cases (Kim-style CNN over word embeddings).

Each sentence is 4-40 random filler words (ids 5..VOCAB-1) padded with 0 to LENGTH, with one
cue bigram planted at a random place: the positive class holds (1, 2) or (3, 4), the
negative class the same words in the other order, (2, 1) or (4, 3). Every cue word is in
every sentence, so only word ORDER separates the classes: what a width-2+ convolution with
max-over-time pooling finds wherever the bigram sits, and what a bag of words cannot.
"""
import numpy as np
import torch

VOCAB, LENGTH, PAD = 60, 48, 0
POSITIVE = ((1, 2), (3, 4))


def sentences(count, seed):
    """(ids (count, LENGTH) int64 padded with 0, labels (count,) int64, lengths (count,))."""
    rng = np.random.default_rng(seed)
    ids = np.zeros((count, LENGTH), dtype=np.int64)
    labels = rng.integers(0, 2, count)
    lengths = rng.integers(4, 41, count)
    for row in range(count):
        n = lengths[row]
        words = rng.integers(5, VOCAB, n)
        first, second = POSITIVE[rng.integers(0, 2)]
        cue = (first, second) if labels[row] else (second, first)
        at = rng.integers(0, n - 1)
        words[at], words[at + 1] = cue
        ids[row, :n] = words
    return torch.from_numpy(ids), torch.from_numpy(labels), torch.from_numpy(lengths)


def data(seed=0):
    """2,000 training and 1,000 held-out sentences."""
    return sentences(2000, seed), sentences(1000, seed + 1)


@torch.no_grad()
def accuracy(model, ids, labels):
    model.eval()
    right = (model(ids).argmax(-1) == labels).float().mean().item()
    model.train()
    return right
