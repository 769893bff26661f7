"""A mixture of experts whose gating weights are built as
``nn.Parameter(torch.zeros(...)).to(device)``: ``.to()`` of a Parameter returns a plain
tensor copy (with a grad_fn), so the module registers no gate at all. The gate stays at
zeros, every sample is routed to the same experts (the first ones on ties), and the
mixture is one small expert. (The noise the gate adds in training, from ``w_noise``, is lost
the same way: its scale stays at softplus(0) and routes the samples at random.)

Reported: "Issue with gates parameters" -
https://github.com/davidmrau/mixture-of-experts/issues/12 ("applying `.to(self.device)` to
a `nn.Parameter` returns a `nn.Tensor`, so the weights are not learned during training
... this prohibited learning the MoE for me"; the fix: drop the ``.to`` and move the whole
module instead). Here a top-1 (switch) gated mixture of eight linear experts classifies the digits.
On the CPU ``.to('cpu')`` returns the Parameter itself, so the case forces the copy a move
to the GPU makes with ``copy=True``: the same plain, non-leaf tensor. Fix: register the
Parameter as is.
"""
import torch
from torch import nn
from torch.nn import functional as F

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "Issue with gates parameters"
LINK = "https://github.com/davidmrau/mixture-of-experts/issues/12"
EXPECTED = ("UNREGISTERED_PARAMETERS",)
STEPS = 300
EXPERTS = 8


class MoE(nn.Module):
    def __init__(self, fixed, inputs=64, outputs=10):
        super().__init__()
        self.experts = nn.ModuleList(nn.Linear(inputs, outputs) for _ in range(EXPERTS))
        gate = nn.Parameter(torch.zeros(inputs, EXPERTS))
        noise = nn.Parameter(torch.zeros(inputs, EXPERTS))
        # BUG when not fixed: .to() returns a copy that is not a Parameter (copy=True: the
        # copy a move to another device makes)
        self.w_gate = gate if fixed else gate.to("cpu", copy=True)
        self.w_noise = noise if fixed else noise.to("cpu", copy=True)

    def forward(self, x):
        logits = x @ self.w_gate
        if self.training:     # noisy gating: a learned amount of noise spreads the samples
            logits = logits + torch.randn_like(logits) * F.softplus(x @ self.w_noise)
        share, index = torch.softmax(logits, dim=1).max(dim=1)        # top-1 routing
        every = torch.stack([expert(x) for expert in self.experts], dim=1)
        chosen = every[torch.arange(len(x)), index]
        return share[:, None] * chosen

def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = MoE(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    return train_watched(model, optimizer, nn.CrossEntropyLoss(), batches(x, y, steps),
                         **watch)
