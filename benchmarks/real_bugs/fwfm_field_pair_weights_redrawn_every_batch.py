"""A field-weighted factorisation machine (FwFM) whose field-pair weights r(Fi, Fj) are
drawn inside ``forward``: every call makes ``torch.randn(...)`` anew and wraps it in an
``nn.Parameter`` that is never registered on the module, so the optimizer never sees it
and the next batch gets other random numbers. The pairwise term, each pair's embedding
product weighted by r, is multiplied by fresh N(0, 1) noise on every forward: its
gradient points nowhere in particular from one step to the next, the embeddings learn to
shrink it rather than to carry the field interactions, and at evaluation the scores get
yet another random weighting. Nothing errors; the loss falls on the first-order part.

Reported: "FwFM算法似乎实现有问题？" (the FwFM implementation seems to have a problem) -
https://github.com/RUCAIBox/RecBole/issues/1413 ("伯乐是每个batch都学习一个新的filed
交叉权重矩阵，这应该是错误吧？按理应该是放到初始化中的" - RecBole learns a new field-pair
weight matrix in every batch, which should be a mistake; it belongs in the
initialisation; closed by the maintainers as fixed in pull request 1414). RecBole's
``fwfm_layer``: ``para = torch.randn(num_fields * num_fields * embedding_size).expand(
batch_size, ...)``, reshaped to (batch, fields, fields, k), then ``r = nn.Parameter(para,
requires_grad=True)`` and ``infeature[:, i] * infeature[:, j] * r[:, Fi, Fj]`` summed over
the pairs and over k.

Set-up here: that FwFM (8 fields, one feature each, k = 8, xavier-normal embeddings,
first-order weights and a bias) on synthetic impressions whose clicks (about 1 in 5)
follow hidden pairwise field interactions (benchmarks/real_bugs/_ctr352.py); BCE with
logits, Adam at 0.01, batches of 128, 400 steps; held-out AUC on 2000 impressions.
Fix: the field-pair weights made once in ``__init__``, as a registered ``nn.Parameter``
the optimizer trains (the pull request moved the draw to ``__init__``).

Measured (held-out AUC): 0.561 with the bug, 0.888 fixed; seeds + 1000: 0.578 vs 0.892.
"""
import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.init import xavier_normal_

import nndebug as nd
from benchmarks.real_bugs._ctr352 import OFFSETS, SIZES, auc, impressions

TITLE = "FwFM算法似乎实现有问题？"
LINK = "https://github.com/RUCAIBox/RecBole/issues/1413"
EXPECTED = ("RANDOM_FEATURES_REDRAWN_EVERY_CALL", "UNREGISTERED_PARAMETERS")
STEPS = 400
BATCH = 128
K = 8


class FwFM(nn.Module):
    def __init__(self, weights_in_init):
        super().__init__()
        rows = sum(SIZES)
        self.num_fields = self.num_features = len(SIZES)
        self.feature2field = {i: i for i in range(self.num_features)}
        self.embedding_size = K
        self.register_buffer("offsets", torch.as_tensor(OFFSETS))
        self.embed = nn.Embedding(rows, K)
        self.first = nn.Embedding(rows, 1)
        self.bias = nn.Parameter(torch.zeros(1))
        xavier_normal_(self.embed.weight.data)
        xavier_normal_(self.first.weight.data)
        self.weights_in_init = weights_in_init
        if weights_in_init:                                    # the fix
            self.r = nn.Parameter(torch.randn(self.num_fields, self.num_fields, K))

    def fwfm_layer(self, infeature):
        batch_size = infeature.shape[0]
        if self.weights_in_init:
            r = self.r.expand(batch_size, -1, -1, -1)
        else:
            # BUG: a new random r on every call, never registered, never trained
            para = torch.randn(self.num_fields * self.num_fields * self.embedding_size).expand(
                batch_size, self.num_fields * self.num_fields * self.embedding_size)
            para = torch.reshape(para, (batch_size, self.num_fields, self.num_fields,
                                        self.embedding_size))
            r = nn.Parameter(para, requires_grad=True)
        fwfm_inter = list()
        for i in range(self.num_features - 1):
            for j in range(i + 1, self.num_features):
                Fi, Fj = self.feature2field[i], self.feature2field[j]
                fwfm_inter.append(infeature[:, i] * infeature[:, j] * r[:, Fi, Fj])
        fwfm_inter = torch.sum(torch.stack(fwfm_inter, dim=1), dim=1)   # (batch, k)
        return torch.sum(fwfm_inter, dim=1, keepdim=True)               # (batch, 1)

    def forward(self, fields):
        ids = fields + self.offsets
        first_order = self.bias + self.first(ids).sum(1)                # (batch, 1)
        return (first_order + self.fwfm_layer(self.embed(ids))).squeeze(-1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    ids, clicks = impressions(8000, seed=0)
    x_train, y_train, x_test, y_test = ids[2000:], clicks[2000:], ids[:2000], clicks[:2000]
    model = FwFM(weights_in_init=fixed)
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
        mon.held_out_auc = auc(model(x_test), y_test)
    return mon
