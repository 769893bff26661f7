"""ComplEx trained with its interaction's last term ADDED instead of subtracted: the score
should be Re(<h, r, conj(t)>) = <hr, rr, tr> + <hr, ri, ti> + <hi, rr, ti> - <hi, ri, tr>,
and with all four terms summed it becomes symmetric in head and tail (swapping h and t
swaps the second and fourth terms with each other, the first and third stay). The model
is then a DistMult in disguise: it cannot tell (h, r, t) from (t, r, h), which is the one
thing ComplEx exists for. The loss falls, the scores look ordinary, nothing errors.

Reported: "The interaction_function of ComplEx is not what it should be" -
https://github.com/pykeen/pykeen/issues/312 (the reporter saw that, against the paper and
the documentation, all terms of PyKEEN's ComplEx interaction had the same sign; the
maintainer confirmed the mistake, introduced by a refactoring commit, and fixed it).
Here ComplEx (32 complex dimensions, PyKEEN's default softplus loss, 8 corrupted heads or
tails per fact) on the small translational knowledge graph of batch 125
(benchmarks/real_bugs/_link_prediction.py: 300 entities, 6 relations, 15% of the facts
held out): translations are antisymmetric relations. Fix: subtract the last term.

Measured (600 Adam steps at 3e-2, batch 128): direction accuracy (share of the held-out
facts whose reversal is not a fact that are scored above that reversal,
benchmarks/real_bugs/_kge.py) and filtered tail MRR / hits@10 of the 432 held-out facts:
seed 0 0.000 (every pair tied) and 0.090 / 0.199 for the bug against 0.720 and 0.094 /
0.243 for the fixed twin; seeds shifted by 1000: 0.000 and 0.102 / 0.250 against 0.756 and
0.142 / 0.287.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._kge import ComplEx, corrupt_k, direction_accuracy
from benchmarks.real_bugs._link_prediction import knowledge_graph, tail_ranking, triple_batches

TITLE = "The interaction_function of ComplEx is not what it should be"
LINK = "https://github.com/pykeen/pykeen/issues/312"
EXPECTED = ("SCORE_SYMMETRIC_IN_HEAD_AND_TAIL",)
STEPS = 600
NEGATIVES = 8


class SameSignComplEx(ComplEx):
    def interaction(self, h, r, t):
        hr, hi = h.chunk(2, dim=-1)
        rr, ri = r.chunk(2, dim=-1)
        tr, ti = t.chunk(2, dim=-1)
        # BUG: the last term added, not subtracted: the score is symmetric in h and t
        return (hr * rr * tr + hr * ri * ti + hi * rr * ti + hi * ri * tr).sum(-1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, test, known = knowledge_graph(seed=0)
    model = ComplEx() if fixed else SameSignComplEx()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-2)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in triple_batches(train, steps, seed=0):
            positive = train[index]
            negative, _ = corrupt_k(positive, NEGATIVES)
            optimizer.zero_grad()
            loss = F.softplus(-model(positive)).mean() + F.softplus(model(negative)).mean()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_direction_accuracy = direction_accuracy(model, test, known)
    mon.held_out_ranking = tail_ranking(model.all_tail_scores, test, known)
    return mon
