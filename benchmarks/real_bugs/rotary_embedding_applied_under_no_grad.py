"""A small GPT with rotary position embeddings (RoPE) whose rotary module runs its whole
forward inside ``torch.no_grad()``: the intent was only to keep the fixed frequency table out
of autograd, but the rotation of the queries and keys happens in the same block, so the
rotated q and k come out as constants. The attention scores never send a gradient back to
the query and key projections: they stay at their random start, every head keeps its random
attention pattern, and only the value path, the MLP and the embeddings learn. The loss
still falls a little (those parts train), while what needs attention is never learnt.

Reported: "Bug Fix: Freqs Cis Grad Flow" - https://github.com/pico-lm/pico-train/pull/27
("if we stop the grad at ROPE the grad doesn't flow back to the linear operation in the
Attention module"). Here a 1-block, 4-head pre-norm GPT (width 32, separate q/k/v
projections as in pico's attention, RoPE on q and k, no learned positions) trained as a
next-token model on synthetic sequences of 16 tokens (vocabulary 16) whose second half
repeats the first, so the second half is predictable only by attending 8 positions back;
Adam 3e-3, batches of 64 fresh sequences, 250 steps.
Fix: build the cos/sin table under no_grad (or as a buffer) and rotate q and k outside it,
so the rotation is part of the graph.

Measured (held-out accuracy on the repeated half of 500 held-out sequences): 0.180 with the
bug, 0.987 fixed; seeds + 1000: 0.185 vs 0.994.
"""
import math

import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd

TITLE = "Bug Fix: Freqs Cis Grad Flow"
LINK = "https://github.com/pico-lm/pico-train/pull/27"
EXPECTED = ("NO_GRADIENT",)
STEPS = 250


class Rotary(nn.Module):
    """Rotates pairs of channels of q and k by position-dependent angles."""

    def __init__(self, head_dim, whole_forward_without_grad):
        super().__init__()
        self.head_dim = head_dim
        self.whole_forward_without_grad = whole_forward_without_grad

    def table(self, length):
        half = self.head_dim // 2
        frequency = 1.0 / (10000 ** (torch.arange(half).float() / half))
        angle = torch.arange(length).float()[:, None] * frequency
        return angle.cos(), angle.sin()

    @staticmethod
    def rotate(x, cos, sin):
        first, second = x.chunk(2, dim=-1)
        return torch.cat([first * cos - second * sin, first * sin + second * cos], dim=-1)

    def forward(self, q, k):
        if self.whole_forward_without_grad:
            with torch.no_grad():              # BUG: the rotation itself is cut from autograd
                cos, sin = self.table(q.shape[-2])
                return self.rotate(q, cos, sin), self.rotate(k, cos, sin)
        with torch.no_grad():                  # the fix: only the fixed table
            cos, sin = self.table(q.shape[-2])
        return self.rotate(q, cos, sin), self.rotate(k, cos, sin)


class Attention(nn.Module):
    def __init__(self, dim, heads, buggy):
        super().__init__()
        self.heads = heads
        self.q_proj, self.k_proj = nn.Linear(dim, dim), nn.Linear(dim, dim)
        self.v_proj, self.o_proj = nn.Linear(dim, dim), nn.Linear(dim, dim)
        self.rope = Rotary(dim // heads, buggy)

    def forward(self, x):
        batch, length, dim = x.shape

        def split(t):
            return t.view(batch, length, self.heads, -1).transpose(1, 2)
        q, k, v = split(self.q_proj(x)), split(self.k_proj(x)), split(self.v_proj(x))
        q, k = self.rope(q, k)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        future = torch.ones(length, length, dtype=torch.bool).triu(1)
        weights = scores.masked_fill(future, float("-inf")).softmax(-1)
        return self.o_proj((weights @ v).transpose(1, 2).reshape(batch, length, dim))


class Block(nn.Module):
    def __init__(self, dim, heads, buggy):
        super().__init__()
        self.norm1, self.norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.attention = Attention(dim, heads, buggy)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x):
        x = x + self.attention(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class RotaryGPT(nn.Module):
    def __init__(self, vocab, buggy, dim=64, layers=2, heads=4):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.blocks = nn.Sequential(*(Block(dim, heads, buggy) for _ in range(layers)))
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab)

    def forward(self, ids):
        return self.head(self.norm(self.blocks(self.embed(ids))))


VOCAB, HALF = 16, 8


def sequences(count, generator):
    """(count, 2 * HALF) token ids: HALF random tokens, then the same HALF again."""
    first = torch.randint(0, VOCAB, (count, HALF), generator=generator)
    return torch.cat([first, first], dim=1)


def copy_accuracy(model, held):
    """Share of the repeated half's tokens the model predicts (argmax, eval mode)."""
    model.eval()
    with torch.no_grad():
        predicted = model(held[:, :-1]).argmax(-1)[:, HALF - 1:]
    model.train()
    return round((predicted == held[:, HALF:]).float().mean().item(), 3)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    data = torch.Generator().manual_seed(torch.randint(0, 2 ** 31, ()).item())
    held = sequences(500, data)
    model = RotaryGPT(VOCAB, buggy=not fixed, dim=32, layers=1)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            batch = sequences(64, data)
            optimizer.zero_grad()
            logits = model(batch[:, :-1])
            loss = F.cross_entropy(logits.transpose(1, 2), batch[:, 1:])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = copy_accuracy(model, held)
    return mon
