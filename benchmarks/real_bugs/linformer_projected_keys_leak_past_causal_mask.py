"""A Linformer decoder trained as a character language model with a "causal" mask laid over
its low-rank attention. Linformer projects the keys and values along the sequence axis, n
positions down to k rows (K' = E K, V' = F V with E, F of shape (k, n)); every projected row
is a mix of ALL n positions, future ones included. Masking the (n, k) attention so that query
i sees only projected rows j <= i therefore hides nothing: each row still carries the
characters after position i, the next one among them. The training loss falls far below
what any causal model reaches, nothing errors, and the model that generates, with the
future not yet written, predicts badly.

Reported: "causal_mask of the decoder" - https://github.com/tatp22/linformer-pytorch/issues/16
(the reporter asked how masking only the (k, k) part of the (n, k) attention can be causal;
the maintainer agreed it is an issue he did not know how to get around; the library's
causal-mask helper builds a true (n, n) triangle only for its full-attention option).
Here: one embedding with learned positions, two Linformer layers (n = 32, k = 8, one head)
with the issue's triangular (n, k) mask, a linear read-out, on the sonnets' characters
(benchmarks/real_bugs/_future_leaks.py: the last 15% of the text held out), Adam. Fix: full
attention under the causal (n, n) mask (the layers' sequence projections dropped).

Measured (300 steps, batch 32; held-out next-character accuracy where each position is
predicted with the characters after it not yet known - blanked to spaces - as when
generating): seed 0, 0.19 for the bug against 0.32 for the fixed twin (the bug's accuracy
with the whole window given, as in training: 0.73); seeds shifted by 1000, 0.18 against 0.31
(0.78 with the window given).
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._future_leaks import held_out_windows, sonnet_split, windows

TITLE = "causal_mask of the decoder"
LINK = "https://github.com/tatp22/linformer-pytorch/issues/16"
EXPECTED = ("FUTURE_LEAK",)
STEPS = 300
LENGTH = 32
DIM_K = 8


class LinformerLayer(nn.Module):
    def __init__(self, dim, n, k, full_attention):
        super().__init__()
        self.full = full_attention
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.ff = nn.Sequential(nn.Linear(dim, 2 * dim), nn.ReLU(), nn.Linear(2 * dim, dim))
        self.norm1, self.norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        if full_attention:
            mask = torch.tril(torch.ones(n, n, dtype=torch.bool))
        else:
            self.E = nn.Parameter(torch.randn(k, n) / n ** 0.5)
            self.F = nn.Parameter(torch.randn(k, n) / n ** 0.5)
            mask = torch.tril(torch.ones(n, k, dtype=torch.bool))    # query i: rows j <= i
        self.register_buffer("mask", mask)

    def forward(self, x):
        q, key, value = self.qkv(self.norm1(x)).chunk(3, dim=-1)
        if not self.full:
            key = self.E @ key                  # (B, k, dim): every position mixed in
            value = self.F @ value
        scores = q @ key.transpose(1, 2) / q.shape[-1] ** 0.5
        scores = scores.masked_fill(~self.mask, float("-inf"))
        x = x + self.proj(scores.softmax(-1) @ value)
        return x + self.ff(self.norm2(x))


class CharLinformer(nn.Module):
    def __init__(self, vocab, full_attention, dim=64, n=LENGTH, k=DIM_K):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.position = nn.Parameter(torch.randn(n, dim) * 0.1)
        self.layers = nn.Sequential(*[LinformerLayer(dim, n, k, full_attention)
                                      for _ in range(2)])
        self.out = nn.Linear(dim, vocab)

    def forward(self, ids):
        return self.out(self.layers(self.embed(ids) + self.position))


def generation_accuracy(model, w, blank):
    """Accuracy of each position's next-character guess when the characters after it are
    blanked (they are not yet generated)."""
    inputs, targets = w[:, :-1], w[:, 1:]
    n = inputs.shape[1]
    correct = 0
    for t in range(n):
        seen = inputs.clone()
        seen[:, t + 1:] = blank
        correct += (model(seen)[:, t].argmax(-1) == targets[:, t]).sum().item()
    return correct / targets.numel()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, held_out, vocab = sonnet_split()
    # BUG: a causal mask over Linformer's sequence-projected keys (fix: full causal attention)
    model = CharLinformer(vocab, full_attention=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for window in windows(train, steps, 32, LENGTH, seed=0):
            logits = model(window[:, :-1])
            loss = nn.functional.cross_entropy(logits.transpose(1, 2), window[:, 1:])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        w = held_out_windows(held_out, LENGTH)
        space = int(torch.mode(train).values)     # the commonest character: the space
        mon.held_out_accuracy = generation_accuracy(model, w, space)
        full = model(w[:, :-1]).argmax(-1)
        mon.held_out_accuracy_whole_window = (full == w[:, 1:]).float().mean().item()
    return mon
