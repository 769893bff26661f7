"""A top-1 (Switch-style) mixture-of-experts layer whose forward computes the
load-balancing auxiliary loss and returns it beside the prediction, while the training
loop backpropagates the task loss alone: the balance term is computed every step and
trained never. With nothing pulling the router toward an even spread, the experts that
win a few clusters early keep them (the winner's weight is its softmax probability, so the
task gradient only sharpens the choices it already makes); the busiest experts overflow
their capacity, and the rows they have no room for skip the layer (the residual carries
them unchanged), so a large share of the inputs never gets an expert's map. The loss still
falls.

Reported: "MoE专家的aux loss好像未被使用" (the MoE experts' aux loss seems not to be used) -
https://github.com/jingyaogong/minimind/issues/140 (aux_loss "计算出来了但并没有被使用",
computed but not used; the maintainer: in V1 it was forgotten while training the MoE, and
V2 adds it to the loss). Here the piecewise-linear regression of
benchmarks/real_bugs/_moe168.py (eight input clusters, each with its own linear map): a
linear embedding (8 -> 32), h + Switch layer(h) with eight ReLU-linear experts behind a
bias-free linear router (top-1, the softmax probability as the weight, each expert taking
at most 1.25 * N / 8 rows of a batch in batch order), a linear head (32 -> 4); Adam at
1e-2, batches of 64, the Switch balance loss E * sum(f_i * P_i) at weight 0.1.
Fix: loss = mse + 0.1 * aux_loss.

Measured (held-out MSE over the targets' variance, 1,024 rows read in batches of 256 with
the training capacity, after 1,000 steps): seed 0, 0.071 for the bug against 0.030 for the
fixed twin; seeds + 1000: 0.057 against 0.037. (Busiest expert's share of held-out rows:
0.26 and 0.38 with the bug, 0.15 and 0.17 fixed.)
"""
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._moe168 import BATCH, DIM, EVAL_BATCH, EXPERTS, OUT, task

TITLE = "MoE专家的aux loss好像未被使用"
LINK = "https://github.com/jingyaogong/minimind/issues/140"
EXPECTED = ("LOSSES_NOT_BACKPROPAGATED",)
STEPS = 1000
AUX_WEIGHT = 0.1
CAPACITY_FACTOR = 1.25
HIDDEN = 32


class SwitchMoE(nn.Module):
    """in -> [h + Switch layer(h)] -> out: the Switch layer's linear experts act on the hidden
    vector, and a row an expert has no room for keeps h through the residual."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Linear(DIM, HIDDEN)
        self.router = nn.Linear(HIDDEN, EXPERTS, bias=False)
        self.expert_weight = nn.Parameter(torch.randn(EXPERTS, HIDDEN, HIDDEN) / HIDDEN ** 0.5)
        self.expert_bias = nn.Parameter(torch.zeros(EXPERTS, HIDDEN))
        self.head = nn.Linear(HIDDEN, OUT)

    def forward(self, x):
        h = self.embed(x)
        probs = self.router(h).softmax(1)
        weight, index = probs.max(1)
        chosen = torch.einsum("nd,nde->ne", h, self.expert_weight[index]) + self.expert_bias[index]
        # expert capacity: each expert takes at most CAPACITY_FACTOR * N / E rows of a batch,
        # in batch order; the overflow rows are dropped (the residual carries them)
        capacity = int(CAPACITY_FACTOR * len(x) / EXPERTS)
        one_hot = F.one_hot(index, EXPERTS)
        position = (one_hot.cumsum(0) * one_hot).sum(1)
        kept = (position <= capacity).float()
        h = h + (kept * weight)[:, None] * torch.relu(chosen)
        routed = one_hot.float().mean(0)
        aux_loss = EXPERTS * (routed * probs.mean(0)).sum()
        return self.head(h), aux_loss


@torch.no_grad()
def held_out(model, x, y):
    """(relative MSE, busiest expert's share of rows), read in EVAL_BATCH-row batches with
    the capacity as it trained (1.0: no better than predicting the mean)."""
    errors, chosen = [], []
    for start in range(0, len(x), EVAL_BATCH):
        xb = x[start:start + EVAL_BATCH]
        errors.append(((model(xb)[0] - y[start:start + EVAL_BATCH]) ** 2).sum(0))
        chosen.append(model.router(model.embed(xb)).argmax(1))
    relative = float((torch.stack(errors).sum(0) / len(x) / y.var(0)).mean())
    share = torch.bincount(torch.cat(chosen), minlength=EXPERTS).max() / len(x)
    return round(relative, 3), round(float(share), 2)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_test, y_test = task()
    model = SwitchMoE()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer, **watch) as mon:
        for rows in index_batches(len(x), steps, BATCH):
            prediction, aux_loss = model(x[rows])
            loss = F.mse_loss(prediction, y[rows])
            if fixed:
                loss = loss + AUX_WEIGHT * aux_loss
            # BUG (not fixed): aux_loss is computed every step and never enters the loss
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_relative_mse, mon.busiest_expert = held_out(model, x_test, y_test)
    return mon
