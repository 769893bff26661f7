"""A translational knowledge-graph model trained with ``MarginRankingLoss`` on the NORMS
``||h + r - t||`` of true and corrupted triples, with the target +1. The loss's +1 asks its
first input to be the larger one, so with the true triples' norms first it pushes every
true fact FAR from ``h + r`` and every corrupted one close: the distance the model then
ranks by is the wrong way round. TransE wants the true fact's norm small (a target of -1,
or the corrupted norm first). The loss falls like a healthy one; nothing errors.

Reported: "in this part, the loss indicate that your model will let pos triplet have high
norm, while neg trilet have low norm. This is just contrast to transe which pos triplet
have low norm." - https://github.com/deepakn97/relationPrediction/issues/21 (the KBGAT
code's margin loss took the positive and negative norms with a label of ones; a second
user confirmed the code did the same; the authors answered that the code was corrected by
negating the label tensor in main.py so the results reproduce, and that the paper's
equation would be updated). Here TransE (L1 distance, unit-norm entities) on a small
translational knowledge graph (benchmarks/real_bugs/_link_prediction.py: 300 entities,
6 relations, 2,880 facts, 432 of them held out), one corrupted head or tail per fact. Fix: target
-1 (the true fact's norm ranked below the corrupted one's).

Measured (300 Adam steps at 3e-2, batch 128, margin 2; filtered tail ranking of the 432
held-out facts among all 300 entities): MRR 0.007 / hits@10 0.002 for the bug (below a
random ranking's ~0.02 / 0.03) against 0.167 / 0.377 for the fixed twin; seeds shifted by
1000: 0.008 / 0.009 against 0.146 / 0.333.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._link_prediction import (TransE, corrupt, knowledge_graph,
                                                   tail_ranking, triple_batches)

TITLE = ("in this part, the loss indicate that your model will let pos triplet have high "
         "norm, while neg trilet have low norm.")
LINK = "https://github.com/deepakn97/relationPrediction/issues/21"
EXPECTED = ("RANKING_TARGET_REVERSED",)
STEPS = 300
MARGIN = 2.0


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(0)
    train, test, known = knowledge_graph(seed=0)
    model = TransE()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-2)
    criterion = nn.MarginRankingLoss(margin=MARGIN)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in triple_batches(train, steps, seed=0):
            positive = train[index]
            negative = corrupt(positive, generator)
            optimizer.zero_grad()
            pos_norm, neg_norm = model(positive), model(negative)
            if fixed:
                y = -torch.ones_like(pos_norm)      # the true fact's norm should be lower
            else:               # BUG: +1 asks the TRUE fact's norm to be the larger one
                y = torch.ones_like(pos_norm)
            loss = criterion(pos_norm, neg_norm, y)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_ranking = tail_ranking(model.all_tail_scores, test, known)
    return mon
