"""A GPT-style block whose hand-written attention applies the softmax to the full score
matrix: no causal mask, so in training every position reads the tokens after it, its own
label among them, and the loss falls far below what the model can do when it generates,
where there is no future to read.

Reported: "CRITICAL: No causal attention mask - bidirectional attention in autoregressive
training" - https://github.com/paiml/entrenar/issues/310 ("applies softmax to the full
[num_heads, seq, seq] attention score matrix without a causal mask. Every token attends to
every other token, including future tokens ... PyTorch (causal attention + normal init):
val_ppl=50 at step 1K; Entrenar v17 (normal init, NO causal mask): val_ppl=729 at step
1K"). Here a 2-block GPT with its own multi-head attention on 32 characters of the sonnets.
Fix: fill the scores above the diagonal with -inf before the softmax.

Measured (150 steps, seed 0; 512 held-out windows, the character after each predicted
from its last position, where no future exists, as when generating): bug: last training
loss 0.12, accuracy 0.21; fixed: last training loss 2.15, accuracy 0.31.
"""
import math

import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import characters, text_windows

TITLE = "CRITICAL: No causal attention mask - bidirectional attention in autoregressive training"
LINK = "https://github.com/paiml/entrenar/issues/310"
EXPECTED = ("FUTURE_LEAK",)
STEPS = 150
LENGTH = 32


class SelfAttention(nn.Module):
    def __init__(self, dim, heads, causal):
        super().__init__()
        self.heads, self.causal = heads, causal
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)

    def forward(self, x):
        batch, length, dim = x.shape
        q, k, v = self.qkv(x).split(dim, dim=2)
        q, k, v = (t.view(batch, length, self.heads, -1).transpose(1, 2) for t in (q, k, v))
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        if self.causal:
            future = torch.ones(length, length, dtype=torch.bool).triu(1)
            scores = scores.masked_fill(future, float("-inf"))
        # BUG when not causal: the softmax runs over the whole row, future included
        weights = scores.softmax(-1)
        return self.out((weights @ v).transpose(1, 2).reshape(batch, length, dim))


class Block(nn.Module):
    def __init__(self, dim, heads, causal):
        super().__init__()
        self.norm1, self.norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.attention = SelfAttention(dim, heads, causal)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x):
        x = x + self.attention(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class GPT(nn.Module):
    def __init__(self, vocab, causal, dim=64):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.position = nn.Embedding(LENGTH, dim)
        self.blocks = nn.Sequential(*(Block(dim, 4, causal) for _ in range(2)))
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab)

    def forward(self, ids):
        x = self.embed(ids) + self.position(torch.arange(ids.shape[1]))
        return self.head(self.norm(self.blocks(x)))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    ids, vocab = characters()
    model = GPT(vocab, causal=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for window in text_windows(ids, steps, length=LENGTH):
            optimizer.zero_grad()
            logits = model(window[:, :-1])
            loss = F.cross_entropy(logits.transpose(1, 2), window[:, 1:])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    held_out = next(text_windows(ids, 1, batch_size=512, length=LENGTH, seed=1))
    with torch.no_grad():
        last = model(held_out[:, :-1])[:, -1]
    mon.measured_accuracy = (last.argmax(-1) == held_out[:, -1]).float().mean().item()
    mon.measured_loss = loss.item()
    return mon
