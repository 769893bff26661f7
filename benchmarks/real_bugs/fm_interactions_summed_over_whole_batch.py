"""A factorisation machine whose pairwise term is reduced with ``torch.sum`` and no ``dim``:
the (batch, factors) table of 0.5 * ((x V)^2 - x^2 V^2) is summed over the factors AND over
every row of the batch, so each sample's score gets the same number - the whole batch's
interactions - added to its own linear part. The model can no longer score any sample's
feature pairs: the factors only learn to move one shared offset, the click predictions
are those of a logistic regression on the first-order weights, and what the interactions
explain is lost. Nothing errors: the scalar broadcasts onto the (batch, 1) linear part.

Reported: "FM的一个小BUG" (a small bug in the FM) -
https://github.com/ShomyLiu/Neu-Review-Rec/issues/9 ("framework/prediciton.py line 136
应该指定sum的dim=1" - the sum on line 136 should be given dim=1; the maintainer: "谢谢指出，
已经修正" - thanks, fixed - with ``0.5 * torch.sum(fm_interactions_1 - fm_interactions_2, 1,
keepdim=True) + fm_linear_part``). The repository's FM prediction layer: ``fc`` Linear(dim,
1) for the first order, ``fm_V`` (dim, 10) factors, both drawn uniform in +-0.05.

Set-up here: the report's FM layer applied to click prediction - synthetic impressions of 8
categorical fields (41 one-hot columns, benchmarks/real_bugs/_ctr352.py) whose clicks
(about 1 in 5) follow hidden pairwise field interactions; BCE with logits, Adam at 0.01,
batches of 128, 400 steps; held-out AUC on 2000 impressions scored in one batch.
Fix: ``torch.sum(..., 1, keepdim=True)``, one interaction term per sample.

Measured (held-out AUC): 0.560 with the bug, 0.896 fixed; seeds + 1000: 0.574 vs 0.906.
"""
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._ctr352 import COLUMNS, auc, impressions, one_hot

TITLE = "FM的一个小BUG"
LINK = "https://github.com/ShomyLiu/Neu-Review-Rec/issues/9"
EXPECTED = ("BATCH_MIXING",)
STEPS = 400
BATCH = 128


class FM(nn.Module):
    """The report's FM prediction layer (first order ``fc``, factors ``fm_V``)."""

    def __init__(self, dim, per_sample):
        super().__init__()
        self.fc = nn.Linear(dim, 1)
        self.fm_V = nn.Parameter(torch.randn(dim, 10))
        self.per_sample = per_sample
        nn.init.uniform_(self.fc.weight, -0.05, 0.05)
        nn.init.constant_(self.fc.bias, 0.0)
        nn.init.uniform_(self.fm_V, -0.05, 0.05)

    def forward(self, input_vec):
        fm_linear_part = self.fc(input_vec)
        fm_interactions_1 = torch.pow(torch.mm(input_vec, self.fm_V), 2)
        fm_interactions_2 = torch.mm(torch.pow(input_vec, 2), torch.pow(self.fm_V, 2))
        if self.per_sample:                                    # the fix
            return 0.5 * torch.sum(fm_interactions_1 - fm_interactions_2, 1,
                                   keepdim=True) + fm_linear_part
        # BUG: no dim - the sum runs over the whole batch too
        return 0.5 * torch.sum(fm_interactions_1 - fm_interactions_2) + fm_linear_part


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    ids, clicks = impressions(8000, seed=0)
    x = one_hot(ids)
    x_train, y_train, x_test, y_test = x[2000:], clicks[2000:], x[:2000], clicks[:2000]
    model = FM(COLUMNS, per_sample=fixed)
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
