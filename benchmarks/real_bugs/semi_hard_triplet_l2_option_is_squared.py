"""A siamese model trained with the semi-hard triplet loss (FaceNet's mining: for every
anchor-positive pair of a batch, the nearest negative that is still farther than the
positive) asks for the "L2" distance, and the library's "L2" was the SQUARED Euclidean
distance. Near the origin, where a freshly initialised tower puts every embedding, the
squared distance and its gradient all but vanish, so the embedding stays bunched up and the
loss drifts toward the margin instead of the digits separating; the loss still prints.

Reported: "Fixes up nomenclature on L1 and L2 norms in triplet losses." -
https://github.com/tensorflow/addons/pull/1966 ("I had a hard time figuring out why my
siamese model was not being able to converge, i.e., it was always converging to the
pre-defined margin ... if we decide not to square root the previously calculated distance
... we are returning a squared version of the L2-distance ... This might lead users in
thinking that using the `L2` argument they are using the euclidean distance, but they are
using its squared version in which, regarding some problems and architectures, will not
convergence"). Here an MLP tower on 8x8 digits, batches of 8 digits x 8 examples, margin 1,
Adam at 2e-2 (the fixed twin trains at the same rate).

Fix: the plain Euclidean distance (the square root of the squared one) inside the loss.

Measured (held-out 1-nearest-neighbour accuracy of the embedding, 500 digits):
held-out accuracy 0.678 vs 0.936 for the fixed twin; seeds + 1000: 0.578 vs 0.930
(300 steps each).
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._siamese_tutorials import (digits, nearest_neighbour_accuracy,
                                                      new_generator, pk_batch, tower)

TITLE = "Fixes up nomenclature on L1 and L2 norms in triplet losses."
LINK = "https://github.com/tensorflow/addons/pull/1966"
EXPECTED = ("COLLAPSED_ACTIVATIONS",)
STEPS = 300
MARGIN = 1.0
LR = 2e-2


def pairwise_distances(e, squared):
    d2 = (e[:, None, :] - e[None, :, :]).pow(2).sum(-1)
    return d2 if squared else (d2 + 1e-12).sqrt()


def semi_hard_triplet_loss(embeddings, labels, squared):
    distance = pairwise_distances(embeddings, squared)
    same = labels[:, None] == labels[None, :]
    positive = same & ~torch.eye(len(labels), dtype=torch.bool)
    # for each (anchor, positive): the nearest negative farther than the positive,
    # or, where there is none, the farthest negative
    d_ap = distance[:, :, None]                       # (a, p, 1)
    d_an = distance[:, None, :]                       # (a, 1, n)
    negative = ~same[:, None, :]
    beyond = negative & (d_an > d_ap)
    big = distance.max().detach() + 1
    semi_hard = torch.where(beyond, d_an, big).min(-1).values
    hardest_fallback = torch.where(negative, d_an, -big).max(-1).values
    chosen = torch.where(beyond.any(-1), semi_hard, hardest_fallback)
    losses = (distance - chosen + MARGIN).clamp_min(0)
    return losses[positive].mean()


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
            # BUG when not fixed: "L2" taken as the squared distance
            loss = semi_hard_triplet_loss(model(x[index]), y[index], squared=not fixed)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon, nearest_neighbour_accuracy(model, x, y, x_test, y_test)


def run(fixed=False, steps=STEPS, **watch):
    return _train(fixed, steps, watch)[0]
