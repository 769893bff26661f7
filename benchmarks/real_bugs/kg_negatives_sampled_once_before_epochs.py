"""Knowledge-graph embeddings trained against corrupted triples that were drawn ONCE, before
the epoch loop: every epoch pairs each true fact with the same corrupted copy. The model
learns to push away that one copy per fact and meets no other false fact; the loss falls
lower than with fresh negatives (the same pairs are fitted again and again), nothing errors,
and the ranking it learns of all the other candidate entities is much worse.

Reported: "about the implementation of RDGCN" - https://github.com/nju-websoft/OpenEA/issues/7
(the reporter saw the RDGCN trainer run its negative sampling outside the epoch loop, so the
negative samples and the feed dict never changed, while the original code re-sampled every
10 epochs; the maintainer found the in-loop sampling had been commented out by mistake
during later experiments and restored it, adding that on their benchmarks it had no obvious
effect on the main results). Here the same loop mistake on TransE (L1 distance, unit-norm
entities, margin 2) over a small translational knowledge graph (benchmarks/real_bugs/
_link_prediction.py: 300 entities, 6 relations, 15% of the facts held out), one corrupted
head or tail per fact. Fix: corrupt each mini-batch's facts afresh inside the loop.

Measured (300 Adam steps, batch 128, filtered tail ranking of the 432 held-out facts among
all 300 entities), MRR / hits@10: seed 0 0.103 / 0.234 against 0.169 / 0.366; seeds shifted
by 1000: 0.072 / 0.181 against 0.147 / 0.322.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._link_prediction import (TransE, corrupt, knowledge_graph,
                                                   tail_ranking, triple_batches)

TITLE = "about the implementation of RDGCN"
LINK = "https://github.com/nju-websoft/OpenEA/issues/7"
EXPECTED = ("NEGATIVES_DRAWN_ONCE",)
STEPS = 300
MARGIN = 2.0


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(0)
    train, test, known = knowledge_graph(seed=0)
    model = TransE()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-2)
    drawn_once = corrupt(train, generator)      # BUG (used below): one negative per fact
    with nd.watch(model, optimizer, **watch) as mon:
        for index in triple_batches(train, steps, seed=0):
            positive = train[index]
            if fixed:
                negative = corrupt(positive, generator)
            else:
                negative = drawn_once[index]
            optimizer.zero_grad()
            loss = torch.relu(MARGIN + model(positive) - model(negative)).mean()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_ranking = tail_ranking(model.all_tail_scores, test, known)
    return mon
