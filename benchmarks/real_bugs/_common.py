"""Data and loop pieces the reproduced reports share (kept small: each case shows its bug)."""
import os

import numpy as np
import torch

# minigrad's copy of the 8x8 digits, read directly (the cases need torch and NumPy only)
DIGITS = os.path.join(os.path.dirname(__file__), "..", "..", "minigrad", "data", "digits.npz")


def classification(images=False):
    """The digits as float32 tensors: x (N, 64) or (N, 1, 8, 8) in [0, 1], y int64 labels."""
    with np.load(DIGITS) as archive:
        x = archive["images"].astype(np.float32).reshape(-1, 64) / 16
        y = archive["labels"].astype(np.int64)
    if images:
        x = x.reshape(-1, 1, 8, 8)
    return torch.from_numpy(x), torch.from_numpy(y)


def binary():
    """Digits 0-4 against 5-9: x (N, 64), y float32 in {0, 1} (shape (N,))."""
    x, y = classification()
    return x, (y >= 5).float()


def regression():
    """Predict the digit's value (standardised) from its pixels: x (N, 64), y (N,) float32."""
    x, y = classification()
    value = y.float()
    return x, (value - value.mean()) / value.std()


def batches(x, y, steps, batch_size=64, seed=0):
    """``steps`` shuffled mini-batches, reshuffled every epoch, from a private generator."""
    for index in index_batches(len(x), steps, batch_size, seed):
        yield x[index], y[index]


def index_batches(n, steps, batch_size=32, seed=0):
    """``steps`` batches of row indices into ``n`` rows, shuffled and reshuffled every epoch
    (a last partial batch dropped), from a private generator."""
    rng = np.random.default_rng(seed)
    done = 0
    while True:
        order = torch.from_numpy(rng.permutation(n))
        for start in range(0, n - batch_size + 1, batch_size):
            yield order[start:start + batch_size]
            done += 1
            if done == steps:
                return


def mlp(inputs=64, hidden=64, outputs=10):
    return torch.nn.Sequential(torch.nn.Linear(inputs, hidden), torch.nn.ReLU(),
                               torch.nn.Linear(hidden, outputs))


# the sonnets minigrad's char-level GPT example trains on (about 5,600 characters)
SONNETS = os.path.join(os.path.dirname(__file__), "..", "..", "minigrad", "examples",
                       "sonnets.txt")


def characters():
    """The sonnets as int64 character ids (a 1-D tensor) and the vocabulary size."""
    with open(SONNETS, encoding="utf-8") as handle:
        text = handle.read()
    chars = sorted(set(text))
    index = {c: i for i, c in enumerate(chars)}
    return torch.tensor([index[c] for c in text], dtype=torch.int64), len(chars)


def text_windows(ids, steps, batch_size=32, length=32, seed=0):
    """``steps`` batches of random windows of ``length + 1`` characters, (B, length + 1):
    a next-character model reads ``[:, :-1]`` and predicts ``[:, 1:]``."""
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        starts = torch.from_numpy(rng.integers(0, len(ids) - length - 1, batch_size))
        yield torch.stack([ids[s:s + length + 1] for s in starts.tolist()])


def padded_lines(min_length=20):
    """The sonnets' verse lines as a padded batch: ids (lines, longest) with 0 as the padding
    id (characters are 1..vocab), and the vocabulary size counting the padding."""
    with open(SONNETS, encoding="utf-8") as handle:
        lines = [line for line in handle.read().splitlines() if len(line) >= min_length]
    chars = sorted(set("".join(lines)))
    index = {c: i + 1 for i, c in enumerate(chars)}
    longest = max(len(line) for line in lines)
    ids = torch.zeros(len(lines), longest, dtype=torch.int64)
    for row, line in enumerate(lines):
        ids[row, :len(line)] = torch.tensor([index[c] for c in line])
    return ids, len(chars) + 1


def train_watched(model, optimizer, loss_fn, data, stepped_by=None, **watch):
    """The ordinary loop (zero_grad, forward, loss, backward, step) under ``nd.watch``; the
    monitor comes back. ``stepped_by``: what the loop calls ``zero_grad()`` and ``step()``
    on when it wraps ``optimizer`` (the watched one). Cases whose bug lives in the loop
    itself write their own loop."""
    import nndebug as nd
    stepped_by = optimizer if stepped_by is None else stepped_by
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in data:
            stepped_by.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            stepped_by.step()
            mon.step(loss)
    return mon


def next_character_batches(ids, steps, length):
    """(inputs, targets) of next-character prediction: each window without its last id, and
    the same window shifted by one (what ``train_watched`` takes with ``next_id_loss``)."""
    for window in text_windows(ids, steps, length=length):
        yield window[:, :-1], window[:, 1:]


def next_id_loss(logits, targets):
    """Cross-entropy of (B, T, vocab) logits against (B, T) ids."""
    return torch.nn.functional.cross_entropy(logits.transpose(1, 2), targets)
