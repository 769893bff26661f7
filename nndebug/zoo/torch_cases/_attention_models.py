"""A one-block GPT with attention written out by hand, nanoGPT-style (``F.softmax`` over the
logits: nd.watch sees the call, ``monitor/attention_capture.py``); ``scaled=False`` plants the
missing 1/sqrt(head dim) on the logits. The minigrad twin uses an ``nn.Softmax`` module."""
import math

import torch
from torch import nn
from torch.nn import functional as F


class ScaledAttention(nn.Module):
    def __init__(self, dim, heads, scaled=True):
        super().__init__()
        self.heads, self.scaled = heads, scaled
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        B, T, E = x.shape
        H, d = self.heads, E // self.heads
        q, k, v = self.qkv(x).split(E, dim=2)
        q, k, v = (t.view(B, T, H, d).transpose(1, 2) for t in (q, k, v))
        scores = q @ k.transpose(-2, -1)
        if self.scaled:
            scores = scores / math.sqrt(d)
        future = torch.triu(torch.ones(T, T, dtype=torch.bool), 1)
        weights = F.softmax(scores.masked_fill(future, float("-inf")), dim=-1)  # (B, H, T, T)
        return self.proj((weights @ v).transpose(1, 2).reshape(B, T, E))


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
        x = self.tok(ids) + self.pos(torch.arange(ids.shape[1], device=ids.device))
        x = x + self.attn(self.norm1(x))
        x = x + self.mlp(self.norm2(x))
        return self.head(x)
