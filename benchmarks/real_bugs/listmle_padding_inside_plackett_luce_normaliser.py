"""ListMLE over a batch of queries with different numbers of documents, padded to the
longest list with a logit of 1e-16, where the padding is masked only AFTER the
Plackett-Luce normalisers are built. Each position's normaliser is the reverse cumulative
sum of exp(score) from that position to the end of the row: exp(1e-16) is 1, so every
padded slot adds about one unit of mass to the normaliser of every real document of a
short list. The likelihood then rewards raising every real score above the padding
rather than ordering the documents, and how much depends on the longest OTHER list in
the batch. The loss is finite, falls, and nothing errors; the ranking learned is worse.

Reported: "[fix] Exclude padding from the Plackett-Luce normalizer in ListMLE/PListMLE
losses" - https://github.com/huggingface/sentence-transformers/pull/3827 (sentence-
transformers' CrossEncoder ListMLELoss/PListMLELoss padded shorter lists with 1e-16
logits and applied ``log_probs[~mask] = 0`` after the cumulative sum; the PR showed one
list's loss growing with the padding width, 0.26 unpadded to 2.16 with four pads, and its
second document's gradient flipping sign; fixed by keeping padded slots out of the
normaliser, a -inf logit there). Here: synthetic queries of 3 to 40 documents with graded
relevance (benchmarks/real_bugs/_ranking.py), 16 queries a step padded to the longest,
an MLP scorer, Adam 1e-3. Fix: the masked normaliser (padding at -inf).

Measured (held-out NDCG@10 on 200 queries of 3-40 documents, 0.44 for a random order):
seed 0, 0.85 for the bug against 0.90 for the fixed twin; seeds shifted by 1000, 0.91
against 0.95 (a smaller harm than the other batch-132 cases, but on both seeds).
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._ranking import (held_out_ndcg, listmle, pad, queries,
                                           query_batches, scorer, split)

TITLE = ("[fix] Exclude padding from the Plackett-Luce normalizer in ListMLE/PListMLE "
         "losses")
LINK = "https://github.com/huggingface/sentence-transformers/pull/3827"
EXPECTED = ("PADDING_NOT_MASKED", "LISTWISE_PADDING_IN_NORMALISER")
STEPS = 300
PAD_LOGIT = 1e-16


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, held_out = split(queries(1000, docs=(3, 40), seed=0))
    model = scorer()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for batch in query_batches(len(train), steps):
            lists = []
            for i in batch:                  # each list best first, by its labels
                x, grades = train[i]
                lists.append(model(x).squeeze(-1)[torch.argsort(grades, descending=True,
                                                                stable=True)])
            scores, mask = pad(lists, PAD_LOGIT)
            if fixed:
                loss = listmle(scores, mask)     # padding kept out of every normaliser
            else:
                # BUG: exp(1e-16) = 1 per padded slot inside each normaliser, masked after
                normaliser = scores.exp().flip(-1).cumsum(-1).flip(-1)
                log_probs = (scores - normaliser.log()).masked_fill(~mask, 0.0)
                loss = -log_probs.sum(-1).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_ndcg = held_out_ndcg(model, held_out)
    return mon
