"""A Mixtral-style mixture-of-experts model computes its load-balancing (auxiliary) loss only
when the caller asked for the router logits (``if output_router_logits:``), not whenever its
coefficient ``router_aux_loss_coef`` is non-zero. With the default ``output_router_logits =
False`` the balancing term is silently never added: the configuration says the routing is
balanced, the loss has no such term, and the router is free to send most tokens to a few
experts while the others are never trained.

Reported: "Fix auxiliary load balancing loss computation when output_router_logits=False" -
https://github.com/huggingface/transformers/pull/44274 (for issue #44242: the auxiliary loss
"was not computed when `output_router_logits=False`, even when `router_aux_loss_coef != 0`",
so "models using the default configuration ... never perform load balancing during
training"). Here two top-2 MoE layers (8 ReLU experts each, softmax router, top-2 weights
renormalised as Mixtral does) on the digits, coefficient 0.02 (chosen so the term acts
within this short run), with the aux loss behind the flag as in the report and the flag left
at its default. Fix: add the term whenever the coefficient is non-zero.

Measured (400 steps, 297 held-out digits, seed 0, the first layer's routing of the training
digits after training): the bug's busiest expert takes 0.34 of the routed slots (0.125 would
be even), held-out accuracy 0.899; the fixed twin's busiest expert 0.20, 0.896 (on this small
task the accuracy does not suffer: the harm is the unbalanced routing the term exists to
prevent, which costs capacity and, with expert parallelism, throughput).
"""
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "Fix auxiliary load balancing loss computation when output_router_logits=False"
LINK = "https://github.com/huggingface/transformers/pull/44274"
EXPECTED = ("EXPERT_LOAD_UNBALANCED",)
STEPS = 400
HELD_OUT = 297
EXPERTS = 8
TOP_K = 2
AUX_COEF = 0.02


class SparseMoeBlock(nn.Module):
    """Top-2 routing over small ReLU experts; keeps its router logits for the step."""

    def __init__(self, width, hidden=32):
        super().__init__()
        self.gate = nn.Linear(width, EXPERTS, bias=False)
        self.experts = nn.ModuleList(
            nn.Sequential(nn.Linear(width, hidden), nn.ReLU(), nn.Linear(hidden, width))
            for _ in range(EXPERTS))
        self.router_logits = None

    def forward(self, h):
        self.router_logits = self.gate(h)
        weights, chosen = torch.softmax(self.router_logits, dim=1).topk(TOP_K, dim=1)
        weights = weights / weights.sum(1, keepdim=True)
        out = torch.zeros_like(h)
        for e, expert in enumerate(self.experts):
            rows, slot = torch.nonzero(chosen == e, as_tuple=True)
            if len(rows):
                out = out.index_add(0, rows, expert(h[rows]) * weights[rows, slot, None])
        return h + out


def load_balancing_loss(router_logits):
    """Switch Transformer's E * sum_i f_i P_i, per layer, averaged over layers."""
    losses = []
    for logits in router_logits:
        probs = torch.softmax(logits, dim=1)
        chosen = probs.topk(TOP_K, dim=1).indices
        routed = F.one_hot(chosen, EXPERTS).float().sum(1).mean(0) / TOP_K    # f_i
        losses.append(EXPERTS * (routed * probs.mean(0)).sum())
    return torch.stack(losses).mean()


class MoEClassifier(nn.Module):
    def __init__(self, width=64):
        super().__init__()
        self.stem = nn.Sequential(nn.Linear(64, width), nn.ReLU())
        self.blocks = nn.ModuleList([SparseMoeBlock(width), SparseMoeBlock(width)])
        self.head = nn.Linear(width, 10)
        self.router_aux_loss_coef = AUX_COEF

    def forward(self, x, labels=None, output_router_logits=False, fixed=False):
        h = self.stem(x)
        for block in self.blocks:
            h = block(h)
        logits = self.head(h)
        loss = F.cross_entropy(logits, labels)
        router_logits = [block.router_logits for block in self.blocks]
        if fixed:
            wanted = self.router_aux_loss_coef != 0
        else:
            wanted = output_router_logits          # BUG: the aux loss hangs on the flag
        if wanted:
            loss = loss + self.router_aux_loss_coef * load_balancing_loss(router_logits)
        return loss, logits


def busiest_share(model, x):
    """The first layer's busiest expert's share of the routed slots (1/8 would be even)."""
    with torch.no_grad():
        model(x, labels=torch.zeros(len(x), dtype=torch.int64))
        chosen = model.blocks[0].router_logits.topk(TOP_K, dim=1).indices
    return float(F.one_hot(chosen, EXPERTS).float().sum(1).mean(0).max() / TOP_K)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = MoEClassifier()
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x[:-HELD_OUT], y[:-HELD_OUT], steps):
            optimizer.zero_grad()
            loss, _ = model(xb, labels=yb, fixed=fixed)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        _, logits = model(x[-HELD_OUT:], labels=y[-HELD_OUT:])
    accuracy = (logits.argmax(1) == y[-HELD_OUT:]).float().mean()
    mon.extra = {"test_accuracy": round(float(accuracy), 3),
                 "busiest_expert": round(busiest_share(model, x[:-HELD_OUT]), 2)}
    model.train()
    return mon
