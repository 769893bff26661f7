"""A factorisation machine keeps every categorical field in one embedding table and shifts
each field's label-encoded ids by an offset: the running sum of the fields' sizes. The
sizes are taken as each column's largest id (``data_x.max()``), one short of its number of
values (ids start at 0), so each field's first value lands on the row of the previous
field's last value. Those pairs share one vector: in the pairwise terms a value then
interacts with everything as the other field's value does, and with small fields that is a
large share of all the values.

Reported: "模型中关于输入的feature_fields的疑惑" (a question about the model's input
feature_fields) - https://github.com/Prayforhanluo/CTR_Algorithm/issues/2 (``fields =
data_x.max().values`` counts one value less per column, so the offsets make the second
column's ids start one row too early; the author: "the ids must be accumulated and then
shifted by one more, this should be a bug"). Here 8 label-encoded fields of 2-5 values and
a click that follows pairwise field interactions; an FM (bias, first-order weights and
8-dimensional factors from the shared table) trained with BCE. Measured (seed 0, 200
steps): the last 20 steps' mean loss is 0.23 with the overlapping offsets and 0.11 with
the right ones. Fix: sizes = ``data_x.max() + 1`` (the number of values).
"""
import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd

TITLE = "模型中关于输入的feature_fields的疑惑"
LINK = "https://github.com/Prayforhanluo/CTR_Algorithm/issues/2"
EXPECTED = ("CATEGORICAL_FIELDS_SHARE_ROWS",)
STEPS = 200
SIZES = (2, 3, 2, 4, 5, 3, 2, 4)      # values per field
FACTORS = 8


def clicks(count, rng):
    """Label-encoded fields (count, 8) and clicks from a hidden pairwise model."""
    fields = np.stack([rng.integers(n, size=count) for n in SIZES], axis=1)
    factors = [rng.normal(size=(n, 4)) for n in SIZES]
    score = np.zeros(count)
    for i in range(len(SIZES)):
        for j in range(i + 1, len(SIZES)):
            score += (factors[i][fields[:, i]] * factors[j][fields[:, j]]).sum(1)
    score = (score - score.mean()) / score.std()
    return torch.from_numpy(fields), torch.from_numpy((score > 0).astype(np.float32))


class FactorizationMachine(nn.Module):
    def __init__(self, rows, offsets):
        super().__init__()
        self.register_buffer("offsets", torch.as_tensor(offsets))
        self.linear = nn.Embedding(rows, 1)
        self.factors = nn.Embedding(rows, FACTORS)
        self.bias = nn.Parameter(torch.zeros(1))
        nn.init.normal_(self.factors.weight, std=0.1)

    def forward(self, fields):
        ids = fields + self.offsets
        v = self.factors(ids)                                   # (B, fields, k)
        pairwise = 0.5 * (v.sum(1) ** 2 - (v ** 2).sum(1)).sum(1)
        return self.bias + self.linear(ids).sum((1, 2)) + pairwise


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    fields, clicked = clicks(4000, rng)
    sizes = fields.max(0).values.numpy()          # BUG (unfixed): the largest id, not the count
    if fixed:
        sizes = sizes + 1
    offsets = np.array((0, *np.cumsum(sizes)[:-1]))
    model = FactorizationMachine(int(sizes.sum()) + 1, offsets)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer, **watch) as mon:
        for step in range(steps):
            rows = torch.from_numpy(rng.integers(len(fields), size=64))
            optimizer.zero_grad()
            loss = F.binary_cross_entropy_with_logits(model(fields[rows]), clicked[rows])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
