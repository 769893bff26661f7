"""A knowledge-graph embedding scored by cosine (both sides of a fact L2-normalised before
their dot product), whose uniformly sampled negative entities skip that normalisation: the
true facts and the corrupted copies' kept side are scored as cosines, the freshly drawn
entity enters the dot product raw. Entities start at a tiny scale (1e-3), so a raw
negative scores about 0 whatever it is, and the ranking loss (a true fact's cosine above
its negatives' scores by the margin) is met as soon as true facts have a cosine a little
above 0.1 (the raw vectors stay near norm 0.08 here, so a raw negative scores within
+-0.08) - the model never learns which entities are wrong answers. The loss falls to near zero,
nothing errors, and the tails it ranks on held-out facts are close to a random guess.

Reported: "Fix prepare_negatives function" -
https://github.com/facebookresearch/PyTorch-BigGraph/pull/70 (the author noticed, in
issue #52's discussion, that with the UNIFORM negative sampling strategy the negatives
drawn by ``prepare_negatives`` were not passed through ``adjust_embs``, so the comparator's
``prepare`` - the normalisation of the cos comparator - was never applied to them; the PR
applies it and reports WN18 runs with the fix (translation operator, cos comparator,
ranking loss, 100 uniform negatives)). Here PyTorch-BigGraph's set-up in small: entity
vectors initialised at scale 1e-3, a translation operator ``h + r`` (relations from
zero), the cos comparator, the ranking loss with margin 0.1 and Adagrad at 0.01 (its
defaults), 8 uniformly drawn negatives per fact (head or tail, half each) on the small
translational knowledge graph of batch 125 (benchmarks/real_bugs/_link_prediction.py: 300
entities, 6 relations, 15% of the facts held out). Fix: normalise the drawn entities like
every other embedding the comparator sees.

Measured (300 steps, batch 128; filtered tail ranking of the 432 held-out facts among all
300 entities, scored by cosine), MRR / hits@10: seed 0 0.079 / 0.236 for the bug against
0.228 / 0.634 for the fixed twin; seeds shifted by 1000: 0.084 / 0.229 against 0.239 /
0.671. (With Adagrad at 0.1 the entity vectors grow to norm ~0.6 within steps, the raw
negatives score like normalised ones and the harm nearly vanishes: hits@10 0.338 against
0.377; the twin is also worse there.)
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._kge import corrupt_k
from benchmarks.real_bugs._link_prediction import (ENTITIES, RELATIONS, knowledge_graph,
                                                   tail_ranking, triple_batches)

TITLE = "Fix prepare_negatives function"
LINK = "https://github.com/facebookresearch/PyTorch-BigGraph/pull/70"
EXPECTED = ("NEGATIVES_SCORED_BY_OTHER_FUNCTION",)
STEPS = 300
NEGATIVES = 8
MARGIN = 0.1        # PyTorch-BigGraph's default ranking margin
INIT_SCALE = 1e-3   # and its default init_scale


class CosineTranslation(nn.Module):
    """score(h, r, t) = cos(h + r, t), the translation operator and the cos comparator."""

    def __init__(self, dim=32):
        super().__init__()
        self.entity = nn.Embedding(ENTITIES, dim)
        self.relation = nn.Embedding(RELATIONS, dim)
        nn.init.normal_(self.entity.weight, std=INIT_SCALE)
        nn.init.zeros_(self.relation.weight)

    def forward(self, triples):
        query = self.entity(triples[:, 0]) + self.relation(triples[:, 1])
        return (F.normalize(query, dim=1) * F.normalize(self.entity(triples[:, 2]), dim=1)).sum(1)

    def all_tail_scores(self, heads, relations):
        query = F.normalize(self.entity(heads) + self.relation(relations), dim=1)
        return query @ F.normalize(self.entity.weight, dim=1).T


def negative_scores(model, negative, tail_side, fixed):
    query = model.entity(negative[:, 0]) + model.relation(negative[:, 1])
    tail = model.entity(negative[:, 2])
    if fixed:
        return (F.normalize(query, dim=1) * F.normalize(tail, dim=1)).sum(1)
    # BUG: the side holding the drawn entity is not passed through the comparator's prepare
    query = torch.where(tail_side[:, None], F.normalize(query, dim=1), query)
    tail = torch.where(tail_side[:, None], tail, F.normalize(tail, dim=1))
    return (query * tail).sum(1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, test, known = knowledge_graph(seed=0)
    model = CosineTranslation()
    optimizer = torch.optim.Adagrad(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in triple_batches(train, steps, seed=0):
            positive = train[index]
            negative, tail_side = corrupt_k(positive, NEGATIVES)
            optimizer.zero_grad()
            positive_score = model(positive).repeat(NEGATIVES)
            loss = torch.relu(MARGIN + negative_scores(model, negative, tail_side, fixed)
                              - positive_score).mean()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_ranking = tail_ranking(model.all_tail_scores, test, known)
    return mon
