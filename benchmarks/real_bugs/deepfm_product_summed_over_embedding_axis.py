"""A DeepFM whose FM part sums its (batch, fields, k) field embeddings over the wrong axes:
``sum(xv, 2)`` adds up each field's k latent numbers (axis 2, the embedding axis) where
the FM sums the fields (axis 1), and the outer ``reduce_sum`` has no axis at all, so it
adds every row of the batch into one number. The "product unit" is then no pairwise
field interaction - each field's latent numbers multiplied with each other, within the
field - and it is one value shared by the whole batch, added to every sample's logit: no
sample's own feature pairs reach its FM score, and the shared scalar's gradient (the
batch's mean residual) pushes every embedding of the batch the same way while the deep
part needs them to carry the interactions. Nothing errors: the scalar broadcasts.

Reported: "A question about FM product unit." -
https://github.com/Atomu2014/product-nets/issues/6 (in the repository's DeepFM,
``p = 0.5 * tf.reduce_sum(tf.square(tf.reduce_sum(xv, 2)) - tf.reduce_sum(tf.square(xv),
2))``; "according to the FM formula, does it should be like this? p = 0.5 *
tf.reduce_sum(tf.square(tf.reduce_sum(xv, 1)) - tf.reduce_sum(tf.square(xv), 1), 1)"; the
author: "yes you are right! fix this bug latter").

Set-up here: a DeepFM in PyTorch - one embedding table with per-field offsets (8 fields,
k = 8), first-order weights, an MLP (64-32-32-1, ReLU) on the concatenated embeddings and
the FM product, their sum the click logit - on synthetic impressions whose clicks (about
1 in 5) follow hidden pairwise field interactions (benchmarks/real_bugs/_ctr352.py); BCE
with logits, Adam at 0.01, batches of 128, 400 steps; held-out AUC on 2000 impressions
scored in one batch.
Fix: the issue's line - sum over the fields (dim 1), then over k per sample (dim 1).

Measured (held-out logloss, the 2000 impressions scored in one batch): 20.27 with the bug,
0.378 fixed; seeds + 1000: 20.63 vs 0.311. The shared product grows with the number of
rows scored together (2000 here, 128 in training), so the probabilities are worthless
outside the training batch size; the ranking suffers less, as the MLP learns much of the
interactions on its own (held-out AUC 0.864 vs 0.887; seeds + 1000: 0.873 vs 0.902).
"""
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._ctr352 import OFFSETS, SIZES, auc, impressions

TITLE = "A question about FM product unit."
LINK = "https://github.com/Atomu2014/product-nets/issues/6"
EXPECTED = ("BATCH_MIXING", "POOLED_OVER_FEATURES")
STEPS = 400
BATCH = 128
K = 8


class DeepFM(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        rows = sum(SIZES)
        self.register_buffer("offsets", torch.as_tensor(OFFSETS))
        self.embed = nn.Embedding(rows, K)
        self.first = nn.Embedding(rows, 1)
        self.bias = nn.Parameter(torch.zeros(1))
        self.deep = nn.Sequential(nn.Linear(len(SIZES) * K, 32), nn.ReLU(),
                                  nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 1))
        nn.init.normal_(self.embed.weight, std=0.1)
        nn.init.zeros_(self.first.weight)
        self.fixed = fixed

    def forward(self, fields):
        ids = fields + self.offsets
        xv = self.embed(ids)                                   # (batch, fields, k)
        if self.fixed:                                         # the fix
            p = 0.5 * torch.sum(torch.sum(xv, 1) ** 2 - torch.sum(xv ** 2, 1), 1)
        else:
            # BUG: sums over k (axis 2), then over everything, the batch included
            p = 0.5 * torch.sum(torch.sum(xv, 2) ** 2 - torch.sum(xv ** 2, 2))
        deep = self.deep(xv.flatten(1)).squeeze(1)
        return self.bias + self.first(ids).sum((1, 2)) + p + deep


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    ids, clicks = impressions(8000, seed=0)
    x_train, y_train, x_test, y_test = ids[2000:], clicks[2000:], ids[:2000], clicks[:2000]
    model = DeepFM(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    generator = torch.Generator().manual_seed(0)
    with nd.watch(model, optimizer, **watch) as mon:
        for step in range(steps):
            rows = torch.randint(len(x_train), (BATCH,), generator=generator)
            loss = F.binary_cross_entropy_with_logits(model(x_train[rows]), y_train[rows])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        scores = model(x_test)
    mon.held_out_logloss = F.binary_cross_entropy_with_logits(scores, y_test).item()
    mon.held_out_auc = auc(scores, y_test)
    return mon
