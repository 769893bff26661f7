"""TransE trained without its norm constraint on the entity vectors: Bordes et al. keep every
entity at unit L2 norm (renormalised each iteration) because otherwise the margin loss can be
lowered by growing the vectors rather than by placing them; the implementation left the
entity table free. The loss falls, nothing errors, and the held-out facts are ranked worse.

Reported: "it seems that there is no L2-norm constraints of the entities embedding?" -
https://github.com/thunlp/OpenKE/issues/52 (the TransE code had no L2-norm constraint on the
entity embeddings although the paper recommends it; other users confirmed; the maintainer
later added normalization operations for the TransX models and reported that the current
implementation then reaches state-of-the-art results on FB15K237 and WN18RR; the same
question was asked again in #182, "You forgot the norm constraints per loop...", answered
"We have added the norm constraints"). Here TransE (L1 distance, margin 2, Adam 1e-2) on a
small translational knowledge graph (benchmarks/real_bugs/_link_prediction.py: 300
entities, 6 relations, 15% of the facts held out), one corrupted head or tail per fact.
Fix: unit-normalise the entity vectors in the forward pass (``F.normalize``).

Measured (300 steps, batch 128, filtered tail ranking of the 432 held-out facts among all
300 entities), MRR / hits@10: seed 0 0.065 / 0.181 against 0.153 / 0.319; seeds shifted
by 1000: 0.068 / 0.169 against 0.106 / 0.269.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._link_prediction import (TransE, corrupt, knowledge_graph,
                                                   tail_ranking, triple_batches)

TITLE = "it seems that there is no L2-norm constraints of the entities embedding?"
LINK = "https://github.com/thunlp/OpenKE/issues/52"
EXPECTED = ("EMBEDDING_NORM_UNCONSTRAINED",)
STEPS = 300
MARGIN = 2.0


class UnconstrainedTransE(TransE):
    def entities(self):
        return self.entity.weight       # BUG: no unit-norm constraint on the entities


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(0)
    train, test, known = knowledge_graph(seed=0)
    model = TransE() if fixed else UnconstrainedTransE()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in triple_batches(train, steps, seed=0):
            positive = train[index]
            negative = corrupt(positive, generator)
            optimizer.zero_grad()
            loss = torch.relu(MARGIN + model(positive) - model(negative)).mean()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_ranking = tail_ranking(model.all_tail_scores, test, known)
    return mon
