"""A GloVe model whose squared error adds the log co-occurrence where it should subtract
it: ``(w_i . c_j + b_i + b_j + log X_ij) ** 2`` asks every focal/context product to equal
MINUS the log count. The loss falls as the correct one does and nothing errors; but the
context vectors learn to point away from the focal vectors of the words they co-occur with
(c ~ -w, where the correct objective makes c ~ w), so the embedding GloVe hands out - focal
plus context vector of each word - cancels out and its neighbours are noise.

Reported: "Loss function definition" - https://github.com/noaRricky/pytorch-glove/issues/1
(the reporter: the loss is wrong because the log of the co-occurrence counts must be
subtracted; a second user agreed that ``+log`` should be ``-log``). The repository's
``__loss`` sums ``weight * (products + focal_bias + context_bias + log_cooccurrences) ** 2``
and its ``embedding_for_tensor`` returns focal plus context embedding. Here the batch-123
corpus (8 topics of 16 words, 32 function words; benchmarks/real_bugs/_word_embeddings.py),
co-occurrences in a window of 5 weighted 1/distance, GloVe's weighting (x / 100) ** 0.75
capped at 1, all tables U(-1, 1), Adam at 0.05 as in the repository, 512 pairs a step.
Fix: ``- log X_ij``.

Measured (300 steps; neighbour precision of the focal + context vectors - the share of each
content word's 5 nearest words from its own topic, chance 0.12): seed 0: 0.08 with the bug,
0.82 fixed; seeds shifted by 1000: 0.08 against 0.87. The focal vectors alone are hardly
harmed (0.57 against 0.55 at seed 0: the sign can move into the context side), which is
why the bug hides when only one table is inspected.
"""
import numpy as np
import torch

import nndebug as nd
from benchmarks.real_bugs._word_embeddings import (GloVe, cooccurrences,
                                                   neighbour_precision, sentences)

TITLE = "Loss function definition"
LINK = "https://github.com/noaRricky/pytorch-glove/issues/1"
EXPECTED = ("REGRESSION_TARGET_NEGATED",)
STEPS = 300
X_MAX, ALPHA = 100.0, 0.75
BATCH = 512


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    ids, _ = sentences(3000, rng)
    focal, context, counts = cooccurrences(ids)
    model = GloVe()
    optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            pick = torch.randint(0, len(focal), (BATCH,))
            i, j, x = focal[pick], context[pick], counts[pick]
            weight = (x / X_MAX).pow(ALPHA).clamp(max=1.0)
            optimizer.zero_grad()
            prediction = model(i, j)
            if fixed:
                loss = (weight * (prediction - torch.log(x)) ** 2).sum()
            else:            # BUG: the log count added, so the products fit -log X
                loss = (weight * (prediction + torch.log(x)) ** 2).sum()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.neighbour_precision = neighbour_precision(model.vectors())
    mon.focal_neighbour_precision = neighbour_precision(model.focal.weight)
    return mon
