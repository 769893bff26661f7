"""A noisy top-k gate computes its noise scale from the gating weights instead of the noise
weights: ``raw_noise_stddev = x @ self.w_gate`` where ``x @ self.w_noise`` was meant. The
noise weights are never used (they get no gradient and never move), and the routing noise
grows with the gate's own logits: the more confident the router becomes, the more noise it
gets, so its training-time routing stays random where it should settle.

Reported: "Bug in noisy mixture of experts" - https://github.com/yfzhang114/SliME/issues/3
("Here instead of self.w_gate there should be self.w_noise"; the maintainer: "You are
correct; there is an error in using self.w_gate instead of self.w_noise"). Here a noisy
top-1 gated mixture of two small ReLU experts (SliME mixes two experts) classifies the
digits, with the importance balance loss of the paper at 0.01. Fix: ``x @ self.w_noise``.

Measured (300 steps, 297 held-out digits, seed 0): the bug's w_noise never receives a
gradient and ends where it started (norm 0.0), held-out accuracy 0.865; the fixed twin's
w_noise learns (norm 0.63), 0.869. (On this small task both gates end with margins larger
than their noise, so the accuracy barely differs: the harm shown is the noise weights that
the model declares and never trains, the maintainer's point.)
"""
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "Bug in noisy mixture of experts"
LINK = "https://github.com/yfzhang114/SliME/issues/3"
EXPECTED = ("NO_GRADIENT",)
STEPS = 300
HELD_OUT = 297
EXPERTS = 2
BALANCE_COEF = 0.01


class NoisyGateMoE(nn.Module):
    def __init__(self, fixed, inputs=64, hidden=32, outputs=10):
        super().__init__()
        self.fixed = fixed
        self.w_gate = nn.Parameter(torch.randn(inputs, EXPERTS) * 0.1)
        self.w_noise = nn.Parameter(torch.zeros(inputs, EXPERTS))
        self.experts = nn.ModuleList(
            nn.Sequential(nn.Linear(inputs, hidden), nn.ReLU(), nn.Linear(hidden, outputs))
            for _ in range(EXPERTS))
        self.balance_loss = None
        self.switches = 0.0

    def forward(self, x):
        clean = x @ self.w_gate
        logits = clean
        if self.training:
            # BUG (unfixed): the noise scale is read from the gating weights
            raw = x @ self.w_noise if self.fixed else x @ self.w_gate
            logits = clean + torch.randn_like(clean) * (F.softplus(raw) + 1e-2)
            self.switches = float((logits.argmax(1) != clean.argmax(1)).float().mean())
        probs = torch.softmax(logits, dim=1)
        top_prob, top = probs.max(1)
        gates = torch.zeros_like(probs).scatter(1, top[:, None], top_prob[:, None])
        importance = gates.sum(0)
        self.balance_loss = importance.var() / (importance.mean() ** 2 + 1e-10)
        every = torch.stack([expert(x) for expert in self.experts], dim=1)
        return (gates[:, :, None] * every).sum(1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = NoisyGateMoE(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    switches = []
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x[:-HELD_OUT], y[:-HELD_OUT], steps):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xb), yb) + BALANCE_COEF * model.balance_loss
            loss.backward()
            optimizer.step()
            mon.step(loss)
            switches.append(model.switches)
    model.eval()
    with torch.no_grad():
        accuracy = (model(x[-HELD_OUT:]).argmax(1) == y[-HELD_OUT:]).float().mean()
    model.train()
    mon.extra = {"test_accuracy": round(float(accuracy), 3),
                 "noise_reroutes": round(sum(switches[-50:]) / 50, 3),
                 "w_noise_norm": round(float(model.w_noise.detach().norm()), 3)}
    return mon
