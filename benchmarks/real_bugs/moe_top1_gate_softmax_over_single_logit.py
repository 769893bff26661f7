"""A noisy top-k gated mixture of experts run with k = 1 softmaxes the *selected* logits,
``softmax(top_k_logits, dim=1)``: with one logit per row the softmax is over a single value,
always 1.0, whatever the logit. Every sample's gate value is the constant 1, the gradient of
the loss with respect to the gating weights is exactly zero, and the router never learns:
samples stay on the experts the initial (random, noisy) gate picked.

Reported: "Zero Grad of w_gate" - https://github.com/davidmrau/mixture-of-experts/issues/27
(the user trained without the balance loss and found w_gate's gradient "always zero"; the
cause they found: with k=1 the top-k logits have shape [batch, 1] and the softmax over that
single-element axis gives a zero gradient). Here a top-1 gated mixture of four small ReLU
experts classifies the digits, trained with Adam and no balance loss, as in the report.
Fix: take the softmax over all experts' logits and use the chosen expert's probability as its
gate (the Switch Transformer's top-1 gate), so the gate value depends on the logits.

Measured (300 steps, 297 held-out digits, seed 0): the bug's gating weights never move (their
gradient is exactly 0 at every step: ||w_gate - w_gate at start|| = 0), held-out accuracy
0.859; the fixed twin's gate learns (it moves by 1.62 times its initial norm), 0.872.
"""
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "Zero Grad of w_gate"
LINK = "https://github.com/davidmrau/mixture-of-experts/issues/27"
EXPECTED = ("SOFTMAX_OVER_ONE_UNIT",)
STEPS = 300
HELD_OUT = 297
EXPERTS = 4
TOP_K = 1


class NoisyTopKMoE(nn.Module):
    """Noisy top-k gating (Shazeer et al. 2017) over small ReLU experts."""

    def __init__(self, fixed, inputs=64, hidden=32, outputs=10):
        super().__init__()
        self.fixed = fixed
        self.w_gate = nn.Parameter(torch.randn(inputs, EXPERTS) * 0.1)
        self.w_noise = nn.Parameter(torch.zeros(inputs, EXPERTS))
        self.experts = nn.ModuleList(
            nn.Sequential(nn.Linear(inputs, hidden), nn.ReLU(), nn.Linear(hidden, outputs))
            for _ in range(EXPERTS))

    def gates(self, x):
        logits = x @ self.w_gate
        if self.training:
            logits = logits + torch.randn_like(logits) * F.softplus(x @ self.w_noise)
        if self.fixed:
            value, index = torch.softmax(logits, dim=1).topk(TOP_K, dim=1)
        else:
            top_logits, index = logits.topk(TOP_K, dim=1)
            value = torch.softmax(top_logits, dim=1)    # BUG: a softmax over one logit
        return torch.zeros_like(logits).scatter(1, index, value)

    def forward(self, x):
        gates = self.gates(x)
        every = torch.stack([expert(x) for expert in self.experts], dim=1)   # (N, E, out)
        return (gates[:, :, None] * every).sum(1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = NoisyTopKMoE(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    start = model.w_gate.detach().clone()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x[:-HELD_OUT], y[:-HELD_OUT], steps):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        accuracy = (model(x[-HELD_OUT:]).argmax(1) == y[-HELD_OUT:]).float().mean()
    model.train()
    moved = (model.w_gate.detach() - start).norm() / start.norm()
    mon.extra = {"test_accuracy": round(float(accuracy), 3),
                 "gate_moved": round(float(moved), 3)}
    return mon
