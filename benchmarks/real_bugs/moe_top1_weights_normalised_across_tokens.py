"""A router normalises the chosen experts' weights with a p-norm "over each token's weights",
``w / w.norm(p, dim=-1, keepdim=True)``, but with top-1 routing it takes the top weight
with ``max(dim=-1)``, which drops the expert axis: ``w`` is one value per token, shape
(tokens,), and ``dim=-1`` is now the token axis. Each token's weight is divided by the sum
over the whole batch, about 1 / batch size. Nothing errors: the experts learn to be about
64 times larger to make up for it, but the scale they learned belongs to batches of 64 -
read the held-out set in other batch sizes and every token's expert output is off by the
ratio, and each token's output now depends on which other tokens share its batch.

Reported: "Fix `moe_normalize_expert_weights` when `top_k=1`" -
https://github.com/databricks/megablocks/pull/87 (``scores.max(dim=-1)`` for top-1 "causes
weight shape to become [S]", so the normalisation "expects dim=-1 to only contain a single
token's weights" and "caused expert weight norm to be calculated wrong"; fixed by keeping the
expert axis, ``unsqueeze`` after the max, so a top-1 weight normalises to 1). Here a digits
classifier with a residual top-1 MoE layer (four ReLU MLP experts, a bias-free router, the
Switch balance loss at 0.01, which is what trains the router once its weights are 1), L1
normalisation, Adam, batches of 64. Fix: normalise over the expert axis (the weight becomes
1 for top-1).

Measured (600 steps, 297 held-out digits; held-out accuracy read one digit at a time and in
one batch of all 297): seed 0, 0.515 (one at a time) and 0.936 (all at once) for the bug
against 0.973 and 0.973 for the fixed twin; seeds shifted by 1000, 0.478 and 0.785 against
0.973 and 0.973. Read in batches of 64, as it trained, the bug scores 0.960 / 0.946.
"""
import torch
import torch.nn.functional as F
from torch import nn

from benchmarks.real_bugs._common import classification, index_batches

TITLE = "Fix `moe_normalize_expert_weights` when `top_k=1`"
LINK = "https://github.com/databricks/megablocks/pull/87"
EXPECTED = ("BATCH_MIXING",)
STEPS = 600
HELD_OUT = 297
EXPERTS = 4
BALANCE_WEIGHT = 0.01
NORM_P = 1


class Top1MoEClassifier(nn.Module):
    def __init__(self, fixed, width=64):
        super().__init__()
        self.fixed = fixed
        self.stem = nn.Sequential(nn.Linear(64, width), nn.ReLU())
        self.router = nn.Linear(width, EXPERTS, bias=False)
        self.experts = nn.ModuleList(
            nn.Sequential(nn.Linear(width, width), nn.ReLU(), nn.Linear(width, width))
            for _ in range(EXPERTS))
        self.head = nn.Linear(width, 10)
        self.balance = None

    def forward(self, x):
        h = self.stem(x)
        probs = self.router(h).softmax(1)
        if self.fixed:
            weight, index = probs.max(1, keepdim=True)          # (tokens, 1): the expert axis
        else:
            weight, index = probs.max(1)                        # BUG: (tokens,) for top-1
        weight = weight / weight.norm(p=NORM_P, dim=-1, keepdim=True)
        weight, index = weight.reshape(-1), index.reshape(-1)
        out = torch.zeros_like(h)
        for e, expert in enumerate(self.experts):
            rows = index == e
            if rows.any():
                out[rows] = expert(h[rows]) * weight[rows, None]
        routed = F.one_hot(index, EXPERTS).float().mean(0)
        self.balance = EXPERTS * (routed * probs.mean(0)).sum()
        return self.head(h + out)


@torch.no_grad()
def accuracy(model, x, y, batch):
    predicted = torch.cat([model(x[s:s + batch]).argmax(1) for s in range(0, len(x), batch)])
    return round(float((predicted == y).float().mean()), 3)


def run(fixed=False, steps=STEPS, **watch):
    import nndebug as nd
    torch.manual_seed(0)
    x, y = classification()
    order = torch.randperm(len(x))
    x, y = x[order], y[order]
    x_train, y_train, x_test, y_test = x[:-HELD_OUT], y[:-HELD_OUT], x[-HELD_OUT:], y[-HELD_OUT:]
    model = Top1MoEClassifier(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for rows in index_batches(len(x_train), steps, 64):
            logits = model(x_train[rows])
            loss = F.cross_entropy(logits, y_train[rows]) + BALANCE_WEIGHT * model.balance
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    mon.held_out_accuracy_one_at_a_time = accuracy(model, x_test, y_test, 1)
    mon.held_out_accuracy_batch_64 = accuracy(model, x_test, y_test, 64)
    mon.held_out_accuracy_all_at_once = accuracy(model, x_test, y_test, HELD_OUT)
    return mon
