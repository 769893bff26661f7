"""Tiny sequence models for the dependency cases (torch), each bug a constructor switch.

``TinyGPT`` is a one-block decoder: token (+ positional) embedding, masked multi-head
self-attention written out by hand (so every step is visible), an MLP and a head. The
switches plant the bugs that ``nd.check_dependencies`` names:

    mask="causal"      correct: position t attends to 0..t
    mask="none"        no mask: every position reads the future         (FUTURE_LEAK)
    mask="inverted"    triu where tril was meant: reads only the future  (FUTURE_LEAK)
    leak=(t, p)        a causal mask with one hole: t also reads p > t   (FUTURE_LEAK)
    merge="view"       heads merged with view, no transpose back          (FUTURE_LEAK)
    pos="learned"      correct: x = tok(ids) + pos(arange(T))
    pos="unused"       the positional embedding is computed and dropped  (POSITIONS_IGNORED)
    pos="zeros"        position ids all zero: every position gets row 0  (POSITIONS_IGNORED)
    pos="batch"        a sinusoidal table indexed by x.size(0) on batch-first
                       tensors (the tutorial's PositionalEncoding misused) (POSITIONS_IGNORED)
    pos=None           no positional parameters at all (order-free by design)
    seq_first_view     (T, B, E) made with view instead of transpose     (BATCH_MIXING)

``padding=True`` makes the model take ``(ids, pad)`` with ``pad`` True at padded positions,
hidden from attention (the healthy way to pad).
"""
import math

import torch
from torch import nn


def sinusoids(length, dim):
    position = torch.arange(length, dtype=torch.float32)[:, None]
    rate = torch.exp(torch.arange(0, dim, 2, dtype=torch.float32) * (-math.log(10000.0) / dim))
    table = torch.zeros(length, dim)
    table[:, 0::2] = torch.sin(position * rate)
    table[:, 1::2] = torch.cos(position * rate)
    return table


class SelfAttention(nn.Module):
    def __init__(self, dim, heads, mask="causal", leak=None, merge="transpose"):
        super().__init__()
        self.heads, self.mask, self.leak, self.merge = heads, mask, leak, merge
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def hidden(self, length):
        """True where a query position may NOT look."""
        ones = torch.ones(length, length, dtype=torch.bool)
        if self.mask == "none":
            hide = torch.zeros(length, length, dtype=torch.bool)
        elif self.mask == "inverted":
            hide = torch.tril(ones, -1)
        else:
            hide = torch.triu(ones, 1)
        if self.leak is not None and max(self.leak) < length:
            hide[self.leak] = False
        return hide

    def forward(self, x, pad=None):
        B, T, E = x.shape
        H, d = self.heads, E // self.heads
        q, k, v = self.qkv(x).split(E, dim=2)
        q, k, v = (t.view(B, T, H, d).transpose(1, 2) for t in (q, k, v))
        scores = q @ k.transpose(-2, -1) / math.sqrt(d)
        hide = self.hidden(T)[None, None]
        if pad is not None:
            hide = hide | pad[:, None, None, :]
        weights = scores.masked_fill(hide, float("-inf")).softmax(dim=-1)
        y = weights @ v                                   # (B, H, T, d)
        if self.merge == "view":
            y = y.reshape(B, T, E)
        else:
            y = y.transpose(1, 2).reshape(B, T, E)
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
            self.register_buffer("pe", sinusoids(length, dim))
        self.norm1 = nn.LayerNorm(dim)
        self.attn = SelfAttention(dim, heads, mask, leak, merge)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))
        self.head = nn.Linear(dim, vocab)

    def embed(self, ids):
        B, T = ids.shape
        x = self.tok(ids)
        if self.pos_kind == "learned":
            x = x + self.pos_emb(torch.arange(T, device=ids.device))
        elif self.pos_kind == "unused":
            positions = self.pos_emb(torch.arange(T, device=ids.device))  # noqa: F841
        elif self.pos_kind == "zeros":
            x = x + self.pos_emb(torch.zeros_like(ids))   # every position looks up row 0
        elif self.pos_kind == "batch":
            x = x + self.pe[:x.size(0)][:, None, :]      # pe[:B]: one vector per sample
        return x

    def forward(self, ids, pad=None):
        x = self.embed(ids)
        if self.seq_first_view:
            B, T, E = x.shape
            x = x.view(T, B, E).transpose(0, 1)           # view is not a transpose
        x = x + self.attn(self.norm1(x), pad)
        x = x + self.mlp(self.norm2(x))
        return self.head(x)


class Encoder(TinyGPT):
    """A bidirectional encoder (no mask) with a learned positional embedding: healthy for
    tasks that are not next-token prediction (tagging, masked-token filling)."""

    def __init__(self, **kwargs):
        super().__init__(mask="none", **kwargs)


def lm_batch(batch=4, length=64, vocab=16, seed=0, pad_tail=0):
    """(ids, targets) for next-token prediction: targets[:, t] = ids[:, t + 1]; the last
    ``pad_tail`` positions of every other sample are padding (id 0, target -100)."""
    g = torch.Generator().manual_seed(seed)
    seq = torch.randint(1, vocab, (batch, length + 1), generator=g)
    ids, targets = seq[:, :-1].clone(), seq[:, 1:].clone()
    pad = torch.zeros(batch, length, dtype=torch.bool)
    if pad_tail:
        pad[::2, length - pad_tail:] = True
        ids[pad] = 0
        targets[pad] = -100
    return ids, targets, pad


def counting_batches(steps, batch=16, length=16, vocab=16, seed=0, shift=1):
    """``steps`` batches ``(ids, targets)`` of a learnable next-token task: each sequence
    counts modulo ``vocab`` from a random start with a random stride (1, 2 or 3), so after
    two tokens the next one is certain. ``targets = seq[:, shift:]`` against
    ``ids = seq[:, :length]`` (shift 1: next-token prediction; 0: the labels left unshifted)."""
    import numpy as np
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        start = rng.integers(0, vocab, size=(batch, 1))
        stride = rng.integers(1, 4, size=(batch, 1))
        seq = (start + stride * np.arange(length + 1)) % vocab
        yield torch.from_numpy(seq[:, :length]), torch.from_numpy(seq[:, shift:shift + length])
