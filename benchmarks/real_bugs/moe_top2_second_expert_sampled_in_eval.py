"""A top-2 gate draws its second expert with Gumbel noise (``logits + gumbel_rsample``) to
spread the load in training, but passes the sampling switch through unchanged in eval mode:
``model.eval()`` turns the capacity and the top-1 noise off, not this. Every evaluation routes
each sample's second half to a random expert: the same weights and the same inputs give a
different validation loss at each call, and worse than the model is.

Reported: "Stop top-2 MoE gating from sampling the second expert in eval" -
https://github.com/deepspeedai/DeepSpeed/pull/8620 ("`top2gating` kept running `logits +=
gumbel_rsample(...)` in eval and drew the second expert instead of taking the argmax of the
remaining logits ... One identical input routed differently on every eval forward: eval
loss, generated tokens and the capacity/drop statistics all moved on unchanged weights and
unchanged data"). Here a top-2 gated mixture of eight small ReLU experts (the two chosen
experts weighted by their renormalised softmax probabilities, as DeepSpeed's top2gating does)
classifies the digits; a validation loss (model.eval(), torch.no_grad()) every 25 steps.
Fix: sample the second expert only when ``self.training``.

Measured (300 steps, 297 held-out digits, seed 0): two evaluations of the bug's final model
on the same digits give validation losses 0.454 and 0.459 and disagree on 2% of the
predictions, accuracy 0.879; the fixed twin's 0.435 and 0.435, no disagreement, 0.892.
"""
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "Stop top-2 MoE gating from sampling the second expert in eval"
LINK = "https://github.com/deepspeedai/DeepSpeed/pull/8620"
EXPECTED = ("ROUTING_RANDOM_IN_EVAL",)
STEPS = 300
HELD_OUT = 297
VAL_EVERY = 25
EXPERTS = 8


def gumbel_like(logits):
    uniform = torch.rand_like(logits).clamp(1e-9, 1 - 1e-9)
    return -torch.log(-torch.log(uniform))


class Top2MoE(nn.Module):
    def __init__(self, fixed, inputs=64, hidden=32, outputs=10):
        super().__init__()
        self.fixed = fixed
        self.second_expert_sampling = True          # the library's default
        self.gate = nn.Linear(inputs, EXPERTS, bias=False)
        self.experts = nn.ModuleList(
            nn.Sequential(nn.Linear(inputs, hidden), nn.ReLU(), nn.Linear(hidden, outputs))
            for _ in range(EXPERTS))

    def gates(self, x):
        logits = self.gate(x)
        probs = torch.softmax(logits, dim=1)
        first = logits.argmax(1)
        sample = self.second_expert_sampling and (self.training or not self.fixed)   # BUG
        second_logits = logits + gumbel_like(logits) if sample else logits
        second_logits = second_logits.masked_fill(F.one_hot(first, EXPERTS).bool(),
                                                  float("-inf"))
        second = second_logits.argmax(1)
        rows = torch.arange(len(x))
        p1, p2 = probs[rows, first], probs[rows, second]
        total = p1 + p2
        gates = torch.zeros_like(probs)
        gates[rows, first] = p1 / total
        gates[rows, second] = p2 / total
        return gates

    def forward(self, x):
        gates = self.gates(x)
        every = torch.stack([expert(x) for expert in self.experts], dim=1)
        return (gates[:, :, None] * every).sum(1)


def evaluate(model, x, y):
    model.eval()
    with torch.no_grad():
        logits = model(x)
    model.train()
    return F.cross_entropy(logits, y), logits.argmax(1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = Top2MoE(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for step, (xb, yb) in enumerate(batches(x[:-HELD_OUT], y[:-HELD_OUT], steps)):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            val = None
            if step % VAL_EVERY == VAL_EVERY - 1:
                val, _ = evaluate(model, x[-HELD_OUT:], y[-HELD_OUT:])
            mon.step(loss, val_loss=val)
    first, predicted = evaluate(model, x[-HELD_OUT:], y[-HELD_OUT:])
    second, again = evaluate(model, x[-HELD_OUT:], y[-HELD_OUT:])
    accuracy = (predicted == y[-HELD_OUT:]).float().mean()
    mon.extra = {"val_loss_twice": (round(float(first), 3), round(float(second), 3)),
                 "val_accuracy": round(float(accuracy), 3),
                 "predictions_disagree": round(float((predicted != again).float().mean()), 3)}
    return mon
