"""Pieces the batch-236 cases (first-tutorial character-level text generators) share: a
stream of made-up names, one per line, as character ids, with a held-out stream from the
same generator; random training windows; and the held-out score - mean next-character
cross-entropy (nats) over fixed, evenly spaced held-out windows, each read from a fresh
(zero) state.

The names have structure an RNN must remember: each name belongs to one of four "families"
whose first syllable and ending are the family's own, with one to three shared syllables in
between - so the ending is predictable only from a first syllable read several characters
before. (The sonnets of ``_common.characters`` are 5,660 characters: a char-RNN overfits
them in a few hundred steps, so these cases use a generator instead.)
"""
import numpy as np
import torch
from torch import nn

LETTERS = "abcdefghijklmnopqrstuvwxyz"
VOCAB = len(LETTERS) + 1            # id 0 is the newline between names
LENGTH, BATCH = 16, 32
FAMILIES = (
    (("bra", "bro", "bre"), ("ndor", "nius")),
    (("sta", "sto", "ste"), ("vika", "lina")),
    (("kla", "klo", "kle"), ("mhet", "rsek")),
    (("dra", "dro", "dre"), ("quez", "gwyn")),
)
MIDDLES = ("ma", "li", "no", "ta", "ri", "se", "lo", "ve", "ka", "du")


def _names(count, rng):
    out = []
    for _ in range(count):
        firsts, endings = FAMILIES[rng.integers(len(FAMILIES))]
        name = firsts[rng.integers(3)]
        name += "".join(MIDDLES[k] for k in rng.integers(0, len(MIDDLES), rng.integers(1, 4)))
        out.append(name + endings[rng.integers(2)])
    return out


def _ids(names):
    text = "\n".join(names) + "\n"
    return torch.tensor([0 if c == "\n" else LETTERS.index(c) + 1 for c in text],
                        dtype=torch.int64)


def split_text(train_names=20000, held_names=1500):
    """(train ids, held-out ids, vocabulary size): two streams of names."""
    train = _ids(_names(train_names, np.random.default_rng(0)))
    held = _ids(_names(held_names, np.random.default_rng(1)))
    return train, held, VOCAB


def windows(ids, steps, batch=BATCH, length=LENGTH):
    """``steps`` batches of random windows, (batch, length + 1) ids each: a next-character
    model reads ``[:, :-1]`` and predicts ``[:, 1:]``."""
    rng = np.random.default_rng(2)
    for _ in range(steps):
        starts = rng.integers(0, len(ids) - length - 1, batch).tolist()
        yield torch.stack([ids[s:s + length + 1] for s in starts])


def held_out_windows(ids, length=LENGTH, count=500):
    """(count, length + 1) evenly spaced windows of the held-out text."""
    starts = np.linspace(0, len(ids) - length - 2, count).astype(int).tolist()
    return torch.stack([ids[s:s + length + 1] for s in starts])


@torch.no_grad()
def held_out_nll(logits_of, ids, length=LENGTH):
    """Mean next-character cross-entropy of ``logits_of(inputs (B, T)) -> (B, T, vocab)``
    over the held-out windows (the model is put in eval mode and back)."""
    was_training = getattr(logits_of, "training", False)
    if was_training:
        logits_of.eval()
    w = held_out_windows(ids, length)
    logits = logits_of(w[:, :-1])
    if was_training:
        logits_of.train()
    return nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]),
                                       w[:, 1:].reshape(-1)).item()
