"""An R-GCN link predictor (relational graph convolution encoder, DistMult decoder) trained
with binary cross-entropy on the true triples and their corrupted copies, whose targets do
not mark the corrupted copies as negatives: every score, true or corrupted, is asked to be
a 1. The loss falls quickly (the model raises every score), nothing errors, and the scores
it learns hardly tell a true fact from a random one.

Reported: "Rgcn link pred fix 2" - https://github.com/pyg-team/pytorch_geometric/pull/2977
(a follow-up to the R-GCN link-prediction example added in #2734 and fixed for weak scores
in #2946; its author lists among the fixes that the loss had not marked any sample as a
negative; the example now builds its targets as ones for the positive scores and zeros for
the negative ones). Here a one-layer R-GCN over learned entity vectors with a DistMult
decoder on a small knowledge graph of bilinear facts (benchmarks/real_bugs/
_link_prediction.py: 300 entities, 6 relations, 15% of the facts held out), one corrupted
head or tail per fact, full batch as in the example, plus its 1e-2 L2 term on the entity
vectors and relations and its gradient clipping at norm 1. Fix:
``torch.cat([ones_like(pos_out), zeros_like(neg_out)])`` as the targets.

Measured (200 full-batch Adam steps at 1e-2; filtered tail ranking of the 432 held-out
facts among all 300 entities), MRR / hits@10: 0.133 / 0.280 for the bug against 0.292 /
0.586 for the fixed twin; seeds shifted by 1000: 0.100 / 0.231 against 0.251 / 0.514.

Why watch misses it: TARGETS_ALL_ONE_VALUE names exactly this (every target of a binary
loss is 1 and the loss fell to ~1% of its start), but it requires the loss call to be the
loss's single addend over the call's own batch; here the call scores 4,896 logits, the
positives' and the negatives' scores from two forward calls of 2,448 concatenated, and the
addend's batch reads as 2,448. (EXPECTED first named NEGATIVES_LABELLED_POSITIVE; the
existing code fits the cause and was put in after scoring, the verdict is the same.)
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._link_prediction import (RGCNDistMult, corrupt, knowledge_graph,
                                                   tail_ranking)

TITLE = "Rgcn link pred fix 2"
LINK = "https://github.com/pyg-team/pytorch_geometric/pull/2977"
EXPECTED = ("TARGETS_ALL_ONE_VALUE",)
STEPS = 200


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(0)
    train, test, known = knowledge_graph(seed=0, kind="bilinear")
    model = RGCNDistMult(train)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            optimizer.zero_grad()
            z = model.encode()
            pos_out = model(train, z)
            neg_out = model(corrupt(train, generator), z)
            out = torch.cat([pos_out, neg_out])
            if fixed:
                target = torch.cat([torch.ones_like(pos_out), torch.zeros_like(neg_out)])
            else:               # BUG: the corrupted triples are not marked as negatives
                target = torch.ones_like(out)
            loss = F.binary_cross_entropy_with_logits(out, target) \
                + 1e-2 * (z.pow(2).mean() + model.relation.pow(2).mean())
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            mon.step(loss)
    mon.held_out_ranking = tail_ranking(model.all_tail_scores, test, known)
    return mon
