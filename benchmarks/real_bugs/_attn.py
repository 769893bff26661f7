"""Shared data for batch 260 (beginner attention mechanisms written by hand in first
tutorials: Bahdanau and Luong attention, softmax over the wrong axis, padding masks,
attention over the batch).

The task: a "sentence" is a sequence of 3 to ``MAX_LEN`` handwritten digits (the 64 pixels
of sklearn's digits, in [0, 1]) with one more input feature, a 0/1 flag set on exactly one
digit; the label is the class of the flagged digit. Shorter sequences are padded at the end
with zero vectors (the ``<pad>`` of the tutorials). A model that averages its inputs sees a
blur of several digits; one whose attention finds the flagged digit reads it alone - so the
held-out accuracy measures whether the attention works.

``pairs`` gives the sentence-pair variant for the cross-attention (ESIM) case.
"""
import numpy as np
import torch

from benchmarks.real_bugs._common import classification

MAX_LEN = 8
FEATURES = 65
BATCH_SIZE = 64


def digits():
    """(train, held-out) halves of the digits: ((x, y), (x, y))."""
    x, y = classification()
    half = len(x) // 2
    return (x[:half], y[:half]), (x[half:], y[half:])


def sequences(x, y, steps, seed=0, min_len=3, max_len=MAX_LEN, batch_size=BATCH_SIZE):
    """``steps`` batches of (items (B, max_len, 65) zero-padded, lengths (B,), labels (B,))."""
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        lengths = rng.integers(min_len, max_len + 1, batch_size)
        index = rng.integers(0, len(x), (batch_size, max_len))
        flagged = (rng.random(batch_size) * lengths).astype(np.int64)
        items = torch.zeros(batch_size, max_len, FEATURES)
        keep = torch.from_numpy(np.arange(max_len)[None, :] < lengths[:, None])
        items[..., :64] = x[torch.from_numpy(index)] * keep.unsqueeze(-1)
        rows = torch.arange(batch_size)
        items[rows, torch.from_numpy(flagged), 64] = 1.0
        labels = y[torch.from_numpy(index[np.arange(batch_size), flagged])]
        yield items, torch.from_numpy(lengths), labels


def held_out(x, y, batches=8, **kw):
    """The held-out sequences, concatenated: (items, lengths, labels)."""
    parts = list(sequences(x, y, batches, seed=1, **kw))
    return tuple(torch.cat(p) for p in zip(*parts))


def pairs(x, y, steps, seed=0, length=4, batch_size=BATCH_SIZE):
    """``steps`` batches of (flagged (B, length, 65), plain (B, length, 64), label (B,)):
    a sentence of digits, one of them flagged; a second sentence of digits; label 1 when the
    flagged digit itself (the same "word") occurs in the plain sentence (about half the
    pairs), else 0 (no digit of its class there)."""
    rng = np.random.default_rng(seed)
    by_class = [np.flatnonzero(y.numpy() == c) for c in range(10)]
    for _ in range(steps):
        index = rng.integers(0, len(x), (batch_size, length))
        flagged = rng.integers(0, length, batch_size)
        target = y[torch.from_numpy(index[np.arange(batch_size), flagged])].numpy()
        label = rng.integers(0, 2, batch_size)
        hyp = np.empty((batch_size, length), dtype=np.int64)
        for b in range(batch_size):
            others = [c for c in range(10) if c != target[b]]
            classes = rng.choice(others, length)
            if label[b]:
                classes[rng.integers(length)] = target[b]
            hyp[b] = [by_class[c][rng.integers(len(by_class[c]))] for c in classes]
            if label[b]:                    # the same "word": the flagged digit itself
                hyp[b, classes.tolist().index(target[b])] = index[b, flagged[b]]
        premise = torch.zeros(batch_size, length, FEATURES)
        premise[..., :64] = x[torch.from_numpy(index)]
        premise[torch.arange(batch_size), torch.from_numpy(flagged), 64] = 1.0
        yield premise, x[torch.from_numpy(hyp)], torch.from_numpy(label)


def held_out_pairs(x, y, batches=8, **kw):
    parts = list(pairs(x, y, batches, seed=1, **kw))
    return tuple(torch.cat(p) for p in zip(*parts))
