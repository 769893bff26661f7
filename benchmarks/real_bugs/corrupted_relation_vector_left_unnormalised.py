"""A translational knowledge-graph model whose relation vectors are kept at unit norm
everywhere except in the negatives that corrupt the RELATION: there the drawn relation's
raw vector is used. Raw vectors are several times longer than unit ones (about 3.5 at
this initialisation), so ``||h + r' - t||`` is far above ``||h + r - t||`` from the start,
the margin is already met, and those pairs give no gradient - the model is never told
which relation a pair does NOT have. The loss falls, nothing errors, and the relation it
predicts for a held-out pair is wrong more often.

Reported: "Normalize `relation_tmp[rel_neg]` in PTransE/Train_TransE_path.cpp" -
https://github.com/thunlp/KB2E/issues/21 (the reporter asked why the trainer normalises
the true relation and the three entities of a pair but skips the corrupted relation
``rel_neg``, which leads to huge scores for the corrupted-relation triple, so the margin
comparison rarely fires and the model may underfit; a maintainer answered "It's a bug,
just fix it."). Here KB2E's set-up in small: TransE (L1 distance, entity and relation
vectors unit-normalised, margin 1), one negative per fact replacing its head, its
relation or its tail (a third each), on the small translational knowledge graph of
batch 125 (benchmarks/real_bugs/_link_prediction.py: 300 entities, 6 relations, 15% of the
facts held out). Fix: normalise the corrupted relation like every other vector.

Measured (600 Adam steps at 1e-2, batch 128): filtered relation prediction of the 432
held-out facts among the 6 relations (benchmarks/real_bugs/_kge.py), hits@1 / MRR: seed 0
0.523 / 0.706 for the bug against 0.641 / 0.782 for the fixed twin; seeds shifted by 1000:
0.456 / 0.658 against 0.544 / 0.720. The tail ranking hardly moves (the relation-corrupted
pairs only teach relations apart): MRR 0.122 against 0.127, and 0.115 against 0.112.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._kge import corrupt_three_ways, relation_ranking
from benchmarks.real_bugs._link_prediction import (TransE, knowledge_graph, tail_ranking,
                                                   triple_batches)

TITLE = "Normalize `relation_tmp[rel_neg]` in PTransE/Train_TransE_path.cpp"
LINK = "https://github.com/thunlp/KB2E/issues/21"
EXPECTED = ("NEGATIVES_SCORED_BY_OTHER_FUNCTION",)
STEPS = 600
MARGIN = 1.0        # KB2E's default margin


class NormalisedTransE(TransE):
    """TransE with unit-norm entities AND relations (KB2E renormalises both)."""

    def relations(self, ids):
        return F.normalize(self.relation(ids), dim=1)

    def forward(self, triples, raw_relation=None):
        e = self.entities()
        r = self.relations(triples[:, 1])
        if raw_relation is not None:            # rows whose relation vector is read raw
            r = torch.where(raw_relation[:, None], self.relation(triples[:, 1]), r)
        return (e[triples[:, 0]] + r - e[triples[:, 2]]).abs().sum(1)

    def all_tail_scores(self, heads, relations):
        e = self.entities()
        return -torch.cdist(e[heads] + self.relations(relations), e, p=1)

    def all_relation_scores(self, heads, tails):
        e = self.entities()
        r = F.normalize(self.relation.weight, dim=1)
        return -(e[heads][:, None, :] + r[None] - e[tails][:, None, :]).abs().sum(-1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, test, known = knowledge_graph(seed=0)
    model = NormalisedTransE()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in triple_batches(train, steps, seed=0):
            positive = train[index]
            negative, which = corrupt_three_ways(positive)
            optimizer.zero_grad()
            if fixed:
                negative_distance = model(negative)
            else:       # BUG: the corrupted relation's vector skips the normalisation
                negative_distance = model(negative, raw_relation=which == 1)
            loss = torch.relu(MARGIN + model(positive) - negative_distance).mean()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_relation_ranking = relation_ranking(model.all_relation_scores, test, known)
    mon.held_out_ranking = tail_ranking(model.all_tail_scores, test, known)
    return mon
