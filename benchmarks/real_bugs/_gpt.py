"""A small GPT the batch-210 cases share (small GPT-style character language models of the
sonnets trained from scratch): token + learned position embeddings, pre-norm blocks of causal
multi-head self-attention and an MLP, a final LayerNorm and a head. Each case keeps its own
bug; the text is split into a training part (first 90%) and a held-out part (last 10%), and
the windows are drawn through ``np.random.default_rng`` so ``--shift-seeds`` moves them."""
import math

import torch
from torch import nn
from torch.nn import functional as F

from benchmarks.real_bugs._common import characters, text_windows

LENGTH = 32


def split_characters():
    """(train ids, held-out ids, vocabulary size): the sonnets' first 90% and last 10%."""
    ids, vocab = characters()
    cut = int(0.9 * len(ids))
    return ids[:cut], ids[cut:], vocab


class SelfAttention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)

    def forward(self, x):
        batch, length, dim = x.shape
        q, k, v = self.qkv(x).split(dim, dim=2)
        q, k, v = (t.view(batch, length, self.heads, -1).transpose(1, 2) for t in (q, k, v))
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        future = torch.ones(length, length, dtype=torch.bool).triu(1)
        weights = scores.masked_fill(future, float("-inf")).softmax(-1)
        return self.out((weights @ v).transpose(1, 2).reshape(batch, length, dim))


class Block(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.norm1, self.norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.attention = SelfAttention(dim, heads)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x):
        x = x + self.attention(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class GPT(nn.Module):
    """``positions``: whether the learned position embedding is added to the tokens'."""
    def __init__(self, vocab, dim=64, layers=2, heads=4, positions=True):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.position = nn.Embedding(LENGTH, dim) if positions else None
        self.blocks = nn.Sequential(*(Block(dim, heads) for _ in range(layers)))
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab)

    def forward(self, ids):
        x = self.embed(ids)
        if self.position is not None:
            x = x + self.position(torch.arange(ids.shape[1]))
        return self.head(self.norm(self.blocks(x)))


def lm_loss(model, window):
    """Next-character cross-entropy: the model reads ``[:, :-1]`` and predicts ``[:, 1:]``."""
    logits = model(window[:, :-1])
    return F.cross_entropy(logits.transpose(1, 2), window[:, 1:])


def held_out_loss(model, held_out, windows=256):
    """Mean next-character cross-entropy (nats) on ``windows`` held-out windows."""
    was_training = model.training
    model.eval()
    with torch.no_grad():
        window = next(text_windows(held_out, 1, batch_size=windows, length=LENGTH, seed=1))
        loss = lm_loss(model, window).item()
    model.train(was_training)
    return loss
