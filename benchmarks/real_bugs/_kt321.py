"""Shared pieces of real-bug batch 321 (beginner knowledge tracing over student histories):
a SAKT-style self-attentive tracer written by hand, and its honest held-out AUC.

The students are those of batch 146 (benchmarks/real_bugs/_kt146.py: 12 skills, 40
attempts, practice raises the chance of a right answer). The tracer reads the interaction
ids of attempts 0..T-2 as keys and values and the NEXT attempt's skill as the query: query
t must only see interactions 0..t, so a causal mask hides every later one (interaction
t + 1 holds the very answer query t is asked for).

The held-out AUC is measured as the tracer would be deployed: the answer at attempt t + 1
is predicted from the interactions up to t only (each prefix fed on its own), so a model
that learned to read later interactions through a broken mask is scored on what it can
really know.
"""
import math

import torch
from torch import nn

from benchmarks.real_bugs._kt146 import DIM, LENGTH, SKILLS, auc, interactions


class Tracer(nn.Module):
    """One attention layer (keys/values: past interactions plus a position embedding;
    queries: the next skill), a feed-forward block and one logit per query. ``attend`` is
    the hand-written attention, (scores, causal mask) -> weights."""

    def __init__(self, attend):
        super().__init__()
        self.attend = attend
        self.interaction = nn.Embedding(1 + 2 * SKILLS, DIM, padding_idx=0)
        self.position = nn.Embedding(LENGTH, DIM)
        self.skill = nn.Embedding(SKILLS, DIM)
        self.q = nn.Linear(DIM, DIM)
        self.k = nn.Linear(DIM, DIM)
        self.v = nn.Linear(DIM, DIM)
        self.norm = nn.LayerNorm(DIM)
        self.ffn = nn.Sequential(nn.Linear(DIM, 2 * DIM), nn.ReLU(), nn.Linear(2 * DIM, DIM))
        self.out = nn.Linear(DIM, 1)

    def forward(self, past, next_skills):
        steps = past.shape[1]
        memory = self.interaction(past) + self.position(torch.arange(steps))
        query = self.skill(next_skills)
        scores = self.q(query) @ self.k(memory).transpose(1, 2) / math.sqrt(DIM)
        future = torch.triu(torch.ones(steps, steps, dtype=torch.bool), diagonal=1)
        read = self.attend(scores, future) @ self.v(memory)
        hidden = self.norm(read + query)
        hidden = self.norm(hidden + self.ffn(hidden))
        return self.out(hidden).squeeze(-1)                   # (B, T - 1)


def prefix_auc(model, test):
    """Held-out AUC, each next answer predicted from the interactions before it only."""
    skills, correct, lengths = test
    ids = interactions(skills, correct, lengths)
    model.eval()
    scores = []
    with torch.no_grad():
        for t in range(LENGTH - 1):
            scores.append(model(ids[:, :t + 1], skills[:, 1:t + 2])[:, -1])
    scores = torch.stack(scores, 1)
    real = torch.arange(1, LENGTH)[None, :] < lengths[:, None]
    return auc(scores[real], correct[:, 1:][real])
