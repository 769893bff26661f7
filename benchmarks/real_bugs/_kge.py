"""Shared pieces of real-bug batch 198 (knowledge-graph and entity embeddings: TransE,
negative sampling, margin ranking losses).

The data, corruption, batching and ranking come from batch 125's
``benchmarks/real_bugs/_link_prediction.py`` (a small translational knowledge graph: 300
entities, 6 relations, 2,880 facts, 15% held out; filtered tail ranking among all 300
entities). Added here:

* ``corrupt_k``: ``k`` corrupted copies of each fact (head or tail, half each), laid out
  copy-major, shape (k * B, 3), with which side was replaced;
* ``ComplEx``: Trouillon et al.'s complex bilinear model (real and imaginary halves of one
  embedding row), scored ``Re(<h, r, conj(t)>)``;
* ``corrupt_three_ways`` and ``relation_ranking``: negatives that replace the head, the
  relation or the tail, and the filtered rank of a held-out fact's relation among all 6;
* ``direction_accuracy``: the share of held-out facts ``(h, r, t)`` whose reversed triple
  ``(t, r, h)`` is not a fact and that the model scores strictly above that reversal - what
  a model of antisymmetric relations has to get right (a symmetric score ties every pair:
  0.0; differences within ``TIE`` count as ties, float32 rounding of terms summed in
  another order).
"""
import torch
from torch import nn

from benchmarks.real_bugs._link_prediction import ENTITIES, RELATIONS

TIE = 1e-4      # scores are O(1); float32 rounding of a reordered sum is ~1e-6 of that


def corrupt_k(triples, k, generator=None):
    """(negatives (k * B, 3), tail_side (k * B,) bool): ``k`` corrupted copies of each fact,
    copy-major (row ``j * B + i`` is copy ``j`` of fact ``i``); each replaces the head or
    the tail (half each) by a uniformly drawn entity."""
    negatives = triples.repeat(k, 1)
    tail_side = torch.rand(len(negatives), generator=generator) < 0.5
    randoms = torch.randint(0, ENTITIES, (len(negatives),), generator=generator)
    negatives[~tail_side, 0] = randoms[~tail_side]
    negatives[tail_side, 2] = randoms[tail_side]
    return negatives, tail_side


class ComplEx(nn.Module):
    """ComplEx: each entity and relation a complex vector of ``dim`` entries stored as one
    row [real | imaginary]; a fact's score is Re(<h, r, conj(t)>) =
    <hr, rr, tr> + <hr, ri, ti> + <hi, rr, ti> - <hi, ri, tr> (higher = more plausible)."""

    def __init__(self, dim=32, init_std=0.1):
        super().__init__()
        self.entity = nn.Embedding(ENTITIES, 2 * dim)
        self.relation = nn.Embedding(RELATIONS, 2 * dim)
        nn.init.normal_(self.entity.weight, std=init_std)
        nn.init.normal_(self.relation.weight, std=init_std)

    def interaction(self, h, r, t):
        """Score of broadcastable [real | imaginary] rows (last dim 2 * dim)."""
        hr, hi = h.chunk(2, dim=-1)
        rr, ri = r.chunk(2, dim=-1)
        tr, ti = t.chunk(2, dim=-1)
        return (hr * rr * tr + hr * ri * ti + hi * rr * ti - hi * ri * tr).sum(-1)

    def forward(self, triples):
        return self.interaction(self.entity(triples[:, 0]), self.relation(triples[:, 1]),
                                self.entity(triples[:, 2]))

    def all_tail_scores(self, heads, relations):
        h = self.entity(heads)[:, None, :]
        r = self.relation(relations)[:, None, :]
        return self.interaction(h, r, self.entity.weight[None, :, :])


@torch.no_grad()
def direction_accuracy(score, test, known):
    """Share of held-out facts (h, r, t), among those whose reversal (t, r, h) is not a
    fact, that ``score`` (triples (N, 3) -> (N,), higher = more plausible) puts above the
    reversal by more than ``TIE``; ties count as wrong."""
    keep = [i for i, (h, r, t) in enumerate(test.tolist()) if (t, r, h) not in known]
    facts = test[keep]
    reversed_ = facts[:, [2, 1, 0]]
    return round(float((score(facts) - score(reversed_) > TIE).float().mean()), 3)


def corrupt_three_ways(triples, generator=None):
    """One negative per fact, replacing its head, its relation or its tail (a third each,
    as KB2E's PTransE trainer does): (negatives (B, 3), which (B,) 0 head / 1 relation /
    2 tail)."""
    negatives = triples.clone()
    which = torch.randint(0, 3, (len(triples),), generator=generator)
    entities = torch.randint(0, ENTITIES, (len(triples),), generator=generator)
    relations = torch.randint(0, RELATIONS, (len(triples),), generator=generator)
    negatives[which == 0, 0] = entities[which == 0]
    negatives[which == 1, 1] = relations[which == 1]
    negatives[which == 2, 2] = entities[which == 2]
    return negatives, which


@torch.no_grad()
def relation_ranking(all_relation_scores, test, known):
    """Filtered hits@1 and MRR of each held-out fact's relation among all RELATIONS.
    ``all_relation_scores(heads, tails)`` gives (B, RELATIONS) scores (higher = more
    plausible); other relations that also join the pair are left out of the ranking."""
    scores = all_relation_scores(test[:, 0], test[:, 2]).clone()
    ranks = []
    for row, (h, r, t) in enumerate(test.tolist()):
        target = scores[row, r].item()
        others = [q for q in range(RELATIONS) if q != r and (h, q, t) in known]
        scores[row, others] = -float("inf")
        ranks.append(1 + int((scores[row] > target).sum()))
    ranks = torch.tensor(ranks, dtype=torch.float)
    return {"hits@1": round(float((ranks == 1).float().mean()), 3),
            "mrr": round(float((1 / ranks).mean()), 3)}
