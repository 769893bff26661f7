"""A twin network is trained with a cosine-similarity loss on MATCHING pairs only
(``1 - cos(f(a), f(b))`` for pairs that belong together) and no term for pairs that do not.
The loss is minimised by mapping every input to the same direction, so it drops quickly
toward its floor while the embedding stops telling inputs apart; nothing errors.

Reported: "[code_search] Fix the loss function" - https://github.com/kubeflow/examples/issues/259
(the thread on the code-search example's loss asks
for a ranking / hinge loss that also scores non-matching pairs instead of a plain
similarity on corresponding pairs; a later comment reports the symptom with a twin/triplet
network: "The loss always rapidly dropped to 0, -1 or whatever the minimum was at the
given loss function"). Here an MLP tower on 8x8 digits, balanced pairs of 128 (half of one digit), Adam.

Fix: add the non-matching pairs with a hinge (cosine embedding loss with margin 0.5 on
pairs of different digits), as the thread proposes.

Measured (held-out 1-nearest-neighbour accuracy of the embedding, 500 digits):
held-out accuracy 0.512 vs 0.940 for the fixed twin; seeds + 1000: 0.460 vs 0.938
(300 steps each).
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._siamese_tutorials import (balanced_pairs, digits,
                                                      nearest_neighbour_accuracy,
                                                      new_generator, tower)

TITLE = "[code_search] Fix the loss function"
LINK = "https://github.com/kubeflow/examples/issues/259"
EXPECTED = ("COLLAPSED_ACTIVATIONS",)
STEPS = 300
MARGIN = 0.5
LR = 1e-3


def _train(fixed, steps, watch):
    torch.manual_seed(0)
    x, y, x_test, y_test = digits()
    generator = new_generator()
    model = tower()
    optimizer = torch.optim.Adam(model.parameters(), lr=LR)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            first, second, same = balanced_pairs(y, 128, generator)
            optimizer.zero_grad()
            cosine = F.cosine_similarity(model(x[first]), model(x[second]), dim=1)
            matching = (1 - cosine) * same
            if fixed:
                loss = (matching + (cosine - MARGIN).clamp_min(0) * (1 - same)).mean()
            else:
                # BUG when not fixed: only the matching pairs are scored
                loss = matching.sum() / same.sum()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon, nearest_neighbour_accuracy(model, x, y, x_test, y_test)


def run(fixed=False, steps=STEPS, **watch):
    return _train(fixed, steps, watch)[0]
