"""Tiny sequence models for the dependency cases (minigrad), the same switches as the torch
ones in ``torch_cases/_seq_models.py``, built from minigrad's basic ops (Embedding, Linear,
LayerNorm, matmul, softmax, masked_fill) so every step of attention is visible.

    mask="causal" | "none" | "inverted", leak=(t, p), merge="transpose" | "view",
    pos="learned" | "unused" | "zeros" | "batch" | None, seq_first_view=False, padding=False
"""
import math

import numpy as np

import minigrad as mg
import minigrad.nn as nn


def sinusoids(length, dim):
    position = np.arange(length, dtype=np.float64)[:, None]
    rate = np.exp(np.arange(0, dim, 2) * (-math.log(10000.0) / dim))
    table = np.zeros((length, dim), dtype=np.float32)
    table[:, 0::2] = np.sin(position * rate)
    table[:, 1::2] = np.cos(position * rate)
    return table


class SelfAttention(nn.Module):
    def __init__(self, dim, heads, mask="causal", leak=None, merge="transpose"):
        super().__init__()
        self.heads, self.mask, self.leak, self.merge = heads, mask, leak, merge
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def hidden(self, length):
        """True where a query position may NOT look."""
        ones = np.ones((length, length), dtype=bool)
        if self.mask == "none":
            hide = np.zeros((length, length), dtype=bool)
        elif self.mask == "inverted":
            hide = np.tril(ones, -1)
        else:
            hide = np.triu(ones, 1)
        if self.leak is not None and max(self.leak) < length:
            hide[self.leak] = False
        return hide

    def forward(self, x, pad=None):
        B, T, E = x.shape
        H, d = self.heads, E // self.heads
        qkv = self.qkv(x)
        q, k, v = (qkv[:, :, i * E:(i + 1) * E].reshape(B, T, H, d).permute(0, 2, 1, 3)
                   for i in range(3))
        scores = (q @ k.permute(0, 1, 3, 2)) * (1.0 / math.sqrt(d))
        hide = self.hidden(T)[None, None]
        if pad is not None:
            hide = hide | np.asarray(pad.data if hasattr(pad, "data") else pad, bool)[:, None, None, :]
        weights = scores.masked_fill(mg.tensor(np.broadcast_to(hide, scores.shape).copy()),
                                     -1e9).softmax(axis=-1)
        y = weights @ v                                   # (B, H, T, d)
        if self.merge == "view":
            y = y.reshape(B, T, E)
        else:
            y = y.permute(0, 2, 1, 3).reshape(B, T, E)
        return self.proj(y)


class TinyGPT(nn.Module):
    def __init__(self, vocab=16, dim=16, length=64, heads=2, mask="causal", leak=None,
                 merge="transpose", pos="learned", padding=False, seq_first_view=False):
        super().__init__()
        self.pos_kind, self.padding, self.seq_first_view = pos, padding, seq_first_view
        self.tok = nn.Embedding(vocab, dim)
        if pos in ("learned", "unused", "zeros"):
            self.pos_emb = nn.Embedding(length, dim)
        elif pos == "batch":
            self.register_buffer("pe", mg.tensor(sinusoids(length, dim)))
        self.norm1 = nn.LayerNorm(dim)
        self.attn = SelfAttention(dim, heads, mask, leak, merge)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))
        self.head = nn.Linear(dim, vocab)

    def embed(self, ids):
        B, T = ids.shape
        x = self.tok(ids)
        if self.pos_kind == "learned":
            x = x + self.pos_emb(mg.tensor(np.arange(T)))
        elif self.pos_kind == "unused":
            positions = self.pos_emb(mg.tensor(np.arange(T)))  # noqa: F841
        elif self.pos_kind == "zeros":
            x = x + self.pos_emb(mg.tensor(np.zeros((B, T), dtype=np.int64)))  # all row 0
        elif self.pos_kind == "batch":
            x = x + self.pe[:B].reshape(B, 1, -1)         # pe[:B]: one vector per sample
        return x

    def forward(self, ids, pad=None):
        x = self.embed(ids)
        if self.seq_first_view:
            B, T, E = x.shape
            x = x.reshape(T, B, E).permute(1, 0, 2)       # a reshape is not a transpose
        x = x + self.attn(self.norm1(x), pad)
        x = x + self.mlp(self.norm2(x))
        return self.head(x)


class Encoder(TinyGPT):
    """A bidirectional encoder (no mask) with a learned positional embedding."""

    def __init__(self, **kwargs):
        super().__init__(mask="none", **kwargs)


def lm_batch(batch=4, length=64, vocab=16, seed=0, pad_tail=0):
    """(ids, targets, pad) as NumPy arrays: targets[:, t] = ids[:, t + 1]; the last
    ``pad_tail`` positions of every other sample are padding (id 0, target -100)."""
    rng = np.random.default_rng(seed)
    seq = rng.integers(1, vocab, size=(batch, length + 1))
    ids, targets = seq[:, :-1].copy(), seq[:, 1:].copy()
    pad = np.zeros((batch, length), dtype=bool)
    if pad_tail:
        pad[::2, length - pad_tail:] = True
        ids[pad] = 0
        targets[pad] = -100
    return ids, targets, pad


def counting_batches(steps, batch=16, length=16, vocab=16, seed=0, shift=1):
    """The torch twin's learnable counting task (see ``torch_cases/_seq_models.py``), as
    minigrad tensors."""
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        start = rng.integers(0, vocab, size=(batch, 1))
        stride = rng.integers(1, 4, size=(batch, 1))
        seq = (start + stride * np.arange(length + 1)) % vocab
        yield mg.tensor(seq[:, :length]), mg.tensor(seq[:, shift:shift + length])
