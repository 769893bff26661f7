"""A one-block GPT whose attention weights come out of an ``nn.Softmax`` module (as many
tutorials write it), so that nd.watch measures them; ``scaled=False`` plants the missing
1/sqrt(head dim) on the logits. (minigrad: a softmax function call is not seen there; the
torch twin, torch_cases/_attention_models.py, calls F.softmax)"""
import math

import numpy as np

import minigrad as mg
import minigrad.nn as nn


class ScaledAttention(nn.Module):
    def __init__(self, dim, heads, scaled=True):
        super().__init__()
        self.heads, self.scaled = heads, scaled
        self.qkv = nn.Linear(dim, 3 * dim)
        self.softmax = nn.Softmax(dim=-1)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        B, T, E = x.shape
        H, d = self.heads, E // self.heads
        qkv = self.qkv(x)
        q, k, v = (qkv[:, :, i * E:(i + 1) * E].reshape(B, T, H, d).permute(0, 2, 1, 3)
                   for i in range(3))
        scores = q @ k.permute(0, 1, 3, 2)
        if self.scaled:
            scores = scores * (1.0 / math.sqrt(d))
        future = np.broadcast_to(np.triu(np.ones((T, T), dtype=bool), 1), scores.shape).copy()
        weights = self.softmax(scores.masked_fill(mg.tensor(future), -1e9))   # (B, H, T, T)
        return self.proj((weights @ v).permute(0, 2, 1, 3).reshape(B, T, E))


class SoftmaxGPT(nn.Module):
    def __init__(self, vocab=16, dim=64, length=16, heads=1, scaled=True):
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)
        self.pos = nn.Embedding(length, dim)
        self.norm1 = nn.LayerNorm(dim)
        self.attn = ScaledAttention(dim, heads, scaled)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))
        self.head = nn.Linear(dim, vocab)

    def forward(self, ids):
        x = self.tok(ids) + self.pos(mg.tensor(np.arange(ids.shape[1])))
        x = x + self.attn(self.norm1(x))
        x = x + self.mlp(self.norm2(x))
        return self.head(x)
