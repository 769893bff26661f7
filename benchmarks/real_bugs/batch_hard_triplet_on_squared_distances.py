"""A batch-hard triplet loss is computed on SQUARED Euclidean distances where the recipe
calls for the plain distance: the distance matrix is built as ``|a|^2 - 2ab + |b|^2`` and
the square root was dropped.
Near the start every embedding sits close to the origin, where a squared distance and its
gradient (2d) all but vanish: the tower keeps its embeddings small (mean norm about 1 at
step 270 against about 7 for the fixed twin), the loss hovers near the margin (0.88 at
step 270 against 0.09), and the nearest-neighbour structure never forms. The loss still
prints and nothing fails.

Reported: "Fix important bug" - https://github.com/VisualComputingInstitute/triplet-reid/pull/12
("This typo that I introduced when "cleaning up" the code for publishing actually swaps
squared-euclidean for euclidean distance. As we reported in the paper, using
squared-euclidean is less stable, which was also observed in #11"; the authors asked
everyone who trained with it to retrain). Here an MLP tower on 8x8 digits, P x K batches
of 8 digits x 8 examples, margin 1, Adam at 1e-2 (the fixed twin trains at the same rate).

Fix: take the square root of the (clamped) squared distances before the hinge.

Measured (held-out 1-nearest-neighbour accuracy of the embedding, 500 digits):
held-out accuracy 0.456 vs 0.944 for the fixed twin; seeds + 1000: 0.544 vs 0.944
(300 steps each).
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._siamese_tutorials import (digits, nearest_neighbour_accuracy,
                                                      new_generator, pk_batch, tower)

TITLE = "Fix important bug"
LINK = "https://github.com/VisualComputingInstitute/triplet-reid/pull/12"
EXPECTED = ("COLLAPSED_ACTIVATIONS",)
STEPS = 300
MARGIN = 1.0
LR = 1e-2


def pairwise_distances(e, squared):
    dot = e @ e.t()
    norm = dot.diagonal()
    d2 = (norm[:, None] - 2 * dot + norm[None, :]).clamp_min(0)
    return d2 if squared else (d2 + 1e-12).sqrt()


def batch_hard_triplet_loss(embeddings, labels, squared):
    distance = pairwise_distances(embeddings, squared)
    same = labels[:, None] == labels[None, :]
    hardest_positive = (distance * same).max(1).values
    hardest_negative = (distance + same * distance.max().detach()).min(1).values
    return (hardest_positive - hardest_negative + MARGIN).clamp_min(0).mean()


def _train(fixed, steps, watch):
    torch.manual_seed(0)
    x, y, x_test, y_test = digits()
    generator = new_generator()
    model = tower()
    optimizer = torch.optim.Adam(model.parameters(), lr=LR)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            index = pk_batch(y, 8, 8, generator)
            optimizer.zero_grad()
            # BUG when not fixed: squared distances where the plain distance was meant
            loss = batch_hard_triplet_loss(model(x[index]), y[index], squared=not fixed)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon, nearest_neighbour_accuracy(model, x, y, x_test, y_test)


def run(fixed=False, steps=STEPS, **watch):
    return _train(fixed, steps, watch)[0]
