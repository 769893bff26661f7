"""Shared pieces of real-bug batch 168 (mixture-of-experts layers written by hand): a
piecewise-linear regression task whose inputs come from separated clusters, each cluster
with its own linear map (so one linear model cannot fit it, while a router that sends each
cluster to its own linear expert fits it exactly), a mixture of linear experts whose gate
each case writes, the training loop under ``nd.watch`` and the held-out read-outs. Call
these inside a case's ``run`` after its ``torch.manual_seed`` so the seeds it sets (and the
benchmark's seed shift) reach every draw."""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import index_batches

DIM = 8             # input features
OUT = 4             # regression targets
CLUSTERS = 8        # input clusters, each with its own linear map
EXPERTS = 8         # one linear expert per cluster when the routing is right
TRAIN, TEST = 4096, 1024
BATCH = 64
EVAL_BATCH = 256    # held-out rows are read in batches of this size


def task():
    """(x_train, y_train, x_test, y_test): rows drawn around ``CLUSTERS`` random centres
    (spread 3, unit noise), targets ``x @ A_c + b_c`` for the row's cluster c, standardised."""
    centres = torch.randn(CLUSTERS, DIM) * 3
    maps = torch.randn(CLUSTERS, DIM, OUT) / DIM ** 0.5
    offsets = torch.randn(CLUSTERS, OUT)

    def draw(n):
        c = torch.randint(CLUSTERS, (n,))
        x = centres[c] + torch.randn(n, DIM)
        return x, torch.einsum("nd,ndo->no", x, maps[c]) + offsets[c]

    x, y = draw(TRAIN + TEST)
    mean, std = y[:TRAIN].mean(0), y[:TRAIN].std(0)
    y = (y - mean) / std
    return x[:TRAIN], y[:TRAIN], x[TRAIN:], y[TRAIN:]


class LinearExperts(nn.Module):
    """``EXPERTS`` linear maps DIM -> OUT, all applied to every row: (N, E, OUT)."""

    def __init__(self, experts=EXPERTS):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(experts, DIM, OUT) / DIM ** 0.5)
        self.bias = nn.Parameter(torch.zeros(experts, OUT))

    def forward(self, x):
        return torch.einsum("nd,edo->neo", x, self.weight) + self.bias


def train(model, optimizer, x, y, steps, aux_weight=0.0, watch=None):
    """The ordinary loop: ``model(x)`` returns (prediction, auxiliary loss); the loss is the
    MSE plus ``aux_weight`` times the auxiliary loss. Returns the closed monitor."""
    with nd.watch(model, optimizer, **(watch or {})) as mon:
        for rows in index_batches(len(x), steps, BATCH):
            prediction, aux = model(x[rows])
            loss = nn.functional.mse_loss(prediction, y[rows]) + aux_weight * aux
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


@torch.no_grad()
def held_out(model, x, y, batch=EVAL_BATCH):
    """(relative MSE, busiest expert's share of rows): the held-out mean squared error over
    the targets' variance (1.0: no better than predicting the mean), read in ``batch``-row
    batches in train mode (the gate as it trained), and the largest share of rows whose top
    routing choice is one expert (1 / EXPERTS when even)."""
    errors, chosen = [], []
    for start in range(0, len(x), batch):
        prediction, _ = model(x[start:start + batch])
        errors.append(((prediction - y[start:start + batch]) ** 2).sum(0))
        chosen.append(model.router(x[start:start + batch]).argmax(1))
    mse = torch.stack(errors).sum(0) / len(x)
    relative = float((mse / y.var(0)).mean())
    share = torch.bincount(torch.cat(chosen), minlength=model.router.out_features).max()
    return round(relative, 3), round(float(share) / len(x), 2)
