"""Data and models the batch-273 cases share (beginner categorical embeddings and mixed
tabular inputs from first tutorials).

mixed_table     rows with a few categorical columns (integer codes) and a few numeric ones,
                and a binary label that depends on both (each category its own effect)
EmbeddingMLP    the first tutorials' tabular network: one nn.Embedding per categorical
                column, their vectors concatenated with the numeric columns, an MLP
held_out_accuracy  accuracy of a one-logit binary model on held-out rows
"""
import numpy as np
import torch
from torch import nn


def mixed_table(rng, rows, levels=(16, 10, 24), numbers=2, effect=1.0, slope=0.8,
                noise=0.4):
    """(codes, x, y): codes int64 (rows, len(levels)), x float32 (rows, numbers) standard
    normal, y float32 in {0, 1}: the logit is the sum of each column's category effect, a
    linear term in the numbers and noise, cut at its median."""
    codes = np.stack([rng.integers(0, n, rows) for n in levels], 1)
    effects = [rng.normal(scale=effect, size=n) for n in levels]
    logit = sum(table[codes[:, i]] for i, table in enumerate(effects))
    x = rng.normal(size=(rows, numbers))
    logit = logit + x @ rng.normal(scale=slope, size=numbers) + noise * rng.normal(size=rows)
    y = (logit > np.median(logit)).astype(np.float32)
    return (torch.from_numpy(codes).long(), torch.from_numpy(x.astype(np.float32)),
            torch.from_numpy(y))


class EmbeddingMLP(nn.Module):
    """One embedding per categorical column, concatenated with the numeric columns, an MLP
    to ``outputs`` values (one logit by default)."""

    def __init__(self, levels, numbers, width=4, hidden=32, outputs=1):
        super().__init__()
        self.embeddings = nn.ModuleList(nn.Embedding(n, width) for n in levels)
        self.mlp = nn.Sequential(nn.Linear(width * len(levels) + numbers, hidden), nn.ReLU(),
                                 nn.Linear(hidden, outputs))

    def forward(self, codes, numbers):
        vectors = [table(codes[:, i]) for i, table in enumerate(self.embeddings)]
        return self.mlp(torch.cat(vectors + [numbers], 1)).squeeze(-1)


def held_out_accuracy(model, *inputs, y):
    """Share of held-out rows whose one-logit prediction (> 0) matches the 0/1 label."""
    model.eval()
    with torch.no_grad():
        predicted = model(*inputs) > 0
    model.train()
    return float((predicted == (y > 0.5)).float().mean())
