"""A factorisation machine whose latent factors ``v`` start at exactly zero. The pairwise
term 0.5 * sum((x v)^2 - x^2 v^2) is quadratic in ``v``, so at v = 0 both its value and
its gradient with respect to ``v`` are exactly zero: the factors sit on a saddle point no
optimizer step leaves, the pairwise interactions stay 0 for the whole run, and the FM
trains as a plain logistic regression on its first-order weights. Nothing errors and the
loss still falls (the linear part learns), so it looks like an FM that is simply weak.

Reported: "FM does not work!" - https://github.com/winterant/DeepCoNN/issues/1 ("The
variable pair_interactions is always 0 in the class FactorizationMachine"; the author:
"OK. I will check and solve the problem this week"). The repository's FactorizationMachine
is ``self.v = nn.Parameter(torch.zeros(p, k))`` beside ``nn.Linear(p, 1)``; later copies
of the same class draw ``self.v = nn.Parameter(torch.rand(p, k) / 10)``.

Set-up here: that FactorizationMachine (k = 10) on click prediction - synthetic impressions
of 8 categorical fields (41 one-hot columns, benchmarks/real_bugs/_ctr352.py) whose clicks
(about 1 in 5) follow hidden pairwise field interactions; BCE with logits, Adam at 0.01,
batches of 128, 400 steps; held-out AUC on 2000 impressions.
Fix: ``self.v = nn.Parameter(torch.rand(p, k) / 10)``, a small random start.

Measured (held-out AUC): 0.563 with the bug, 0.897 fixed; seeds + 1000: 0.573 vs 0.909.
"""
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._ctr352 import COLUMNS, auc, impressions, one_hot

TITLE = "FM does not work!"
LINK = "https://github.com/winterant/DeepCoNN/issues/1"
EXPECTED = ("NO_GRADIENT",)
STEPS = 400
BATCH = 128


class FactorizationMachine(nn.Module):
    """The report's FactorizationMachine (p inputs, k factors)."""

    def __init__(self, p, k, random_start):
        super().__init__()
        if random_start:                                       # the fix
            self.v = nn.Parameter(torch.rand(p, k) / 10)
        else:
            self.v = nn.Parameter(torch.zeros(p, k))           # BUG: a saddle at 0
        self.linear = nn.Linear(p, 1, bias=True)

    def forward(self, x):
        linear_part = self.linear(x)
        inter_part1 = torch.mm(x, self.v)
        inter_part2 = torch.mm(x ** 2, self.v ** 2)
        pair_interactions = torch.sum(inter_part1 ** 2 - inter_part2, dim=1)
        output = linear_part.transpose(1, 0) + 0.5 * pair_interactions
        return output.view(-1, 1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    ids, clicks = impressions(8000, seed=0)
    x = one_hot(ids)
    x_train, y_train, x_test, y_test = x[2000:], clicks[2000:], x[:2000], clicks[:2000]
    model = FactorizationMachine(COLUMNS, 10, random_start=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    generator = torch.Generator().manual_seed(0)
    with nd.watch(model, optimizer, **watch) as mon:
        for step in range(steps):
            rows = torch.randint(len(x_train), (BATCH,), generator=generator)
            loss = F.binary_cross_entropy_with_logits(model(x_train[rows]).squeeze(1),
                                                      y_train[rows])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        mon.held_out_auc = auc(model(x_test).squeeze(1), y_test)
    return mon
