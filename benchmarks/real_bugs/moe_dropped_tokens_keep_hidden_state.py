"""A Switch Transformer layer gathers its experts' outputs into ``next_states =
hidden_states.clone()`` and writes each expert's result into the rows it kept; rows an expert
dropped (over its capacity) keep their *input*, and the whole tensor is then scaled by the
router probability. A dropped token should contribute nothing (the residual carries it past
the layer); here it comes out as ``p * h``, added to the residual ``h``: the layer scales the
dropped tokens by 1 + p instead of leaving them alone, and which tokens are dropped changes
with each batch's routing.

Reported: "SwitchTransformer: Initialization of tensor to collect expert results is incorrect
for dropped tokens (from ML POV)" - https://github.com/huggingface/transformers/issues/37017
("this logic is fine for all tokens that are not dropped, it is wrong for dropped tokens ...
one would get as output the original hidden states scaled by the probability of the
respective expert they got never assigned to"; fixed by initialising with zeros). Here two
residual Switch layers (4 ReLU experts, top-1, capacity factor 1.0, the Switch balance loss
at 0.1) on the digits. Fix: ``next_states = torch.zeros_like(hidden_states)``.

Measured (300 steps, 297 held-out digits, seed 0, the first layer over the last 50 steps):
the bug's router drops 19.8% of the tokens (a dropped token costs the router nothing, since
it comes out scaled rather than lost), held-out accuracy 0.879; the fixed twin drops 9.5%,
0.879. On this small task the accuracy does not suffer: the harm shown is the layer's output
for the dropped tokens, (1 + p) h instead of h, and the doubled drop rate. (The balance loss
is at 0.1, not the usual 0.01: at 0.01 the fixed twin's router also starved experts of
tokens, so a healthy twin needed the stronger term.)
"""
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = ("SwitchTransformer: Initialization of tensor to collect expert results is incorrect "
         "for dropped tokens (from ML POV)")
LINK = "https://github.com/huggingface/transformers/issues/37017"
EXPECTED = ("RESIDUAL_MULTIPLIED",)
STEPS = 300
HELD_OUT = 297
EXPERTS = 4
CAPACITY_FACTOR = 1.0
BALANCE_COEF = 0.1


class SwitchLayer(nn.Module):
    def __init__(self, fixed, width, hidden=64):
        super().__init__()
        self.fixed = fixed
        self.router = nn.Linear(width, EXPERTS, bias=False)
        self.experts = nn.ModuleList(
            nn.Sequential(nn.Linear(width, hidden), nn.ReLU(), nn.Linear(hidden, width))
            for _ in range(EXPERTS))
        self.balance_loss = None
        self.dropped = 0.0

    def forward(self, h):
        probs = torch.softmax(self.router(h), dim=1)
        top_prob, top = probs.max(1)
        capacity = int(CAPACITY_FACTOR * len(h) / EXPERTS)
        one_hot = F.one_hot(top, EXPERTS)
        position = (one_hot.cumsum(0) * one_hot).sum(1)            # 1-based slot in its expert
        kept = position <= capacity
        # BUG (unfixed): dropped rows keep their input instead of contributing nothing
        next_states = torch.zeros_like(h) if self.fixed else h.clone()
        for e, expert in enumerate(self.experts):
            rows = (top == e) & kept
            if rows.any():
                next_states[rows] = expert(h[rows])
        routed = one_hot.float().mean(0)
        self.balance_loss = EXPERTS * (routed * probs.mean(0)).sum()
        self.dropped = float(1 - kept.float().mean())
        return h + top_prob[:, None] * next_states


class SwitchClassifier(nn.Module):
    def __init__(self, fixed, width=64):
        super().__init__()
        self.stem = nn.Sequential(nn.Linear(64, width), nn.ReLU())
        self.layers = nn.ModuleList([SwitchLayer(fixed, width), SwitchLayer(fixed, width)])
        self.head = nn.Linear(width, 10)

    def forward(self, x):
        h = self.stem(x)
        for layer in self.layers:
            h = layer(h)
        return self.head(h)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = SwitchClassifier(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    dropped = []
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x[:-HELD_OUT], y[:-HELD_OUT], steps):
            optimizer.zero_grad()
            logits = model(xb)
            balance = torch.stack([layer.balance_loss for layer in model.layers]).mean()
            loss = F.cross_entropy(logits, yb) + BALANCE_COEF * balance
            loss.backward()
            optimizer.step()
            mon.step(loss)
            dropped.append(model.layers[0].dropped)
    model.eval()
    with torch.no_grad():
        accuracy = (model(x[-HELD_OUT:]).argmax(1) == y[-HELD_OUT:]).float().mean()
    model.train()
    mon.extra = {"test_accuracy": round(float(accuracy), 3),
                 "dropped_share": round(sum(dropped[-50:]) / 50, 3),
                 "last_loss": round(float(loss.detach()), 3)}
    return mon
