"""Batch-hard triplet loss fed one embedding per class. The data were packed as one example
per class holding several texts (images here) of that class, and the loss reads only the
first member of each example, so every label appears ONCE in the batch. Batch-hard mining
then finds no positive but the anchor itself: the hardest positive distance is 0, and the
loss ``max(0 - d(a, hardest negative) + margin, 0)`` only pushes different classes apart.
Nothing ever pulls a class together; the loss falls to zero as the batch's classes spread
past the margin, and the embedding stays a poor metric.

Reported: "Fix tripletLoss" - https://github.com/huggingface/sentence-transformers/pull/455
(fixing #391: with "all instances of one class in a InputExample", BatchHardTripletLoss's
``self.batch_hard_triplet_loss(labels, reps[0])`` "only use[s] the first example to train
... the in-class distance will be taken as 0 ... Gradient will be 0, and network won't
converge"; the maintainer: the loss expects one text per ``InputExample`` with its label,
"adding multiple texts under InputExample.texts will not work" - the fix is to give every
text its own example so a batch holds several of each label). Here the digits: each step
one packed example of 4 images for each of the 10 digits, an MLP embedder of 16 numbers,
Euclidean batch-hard loss with margin 0.5, Adam. Fix: the examples unpacked, every image
with its label (40 rows, 4 per digit).

Measured (300 steps, 597 held-out digits; leave-one-out nearest-neighbour accuracy, and
5-way 1-shot nearest-prototype accuracy over 200 held-out episodes): seed 0, recall@1
0.925 for the bug against 0.992 for the fixed twin, episodes 0.70 against 0.99; seeds
shifted by 1000, recall@1 0.925 against 0.972, episodes 0.72 against 0.98.
"""
import numpy as np
import torch

import nndebug as nd
from benchmarks.real_bugs._ml167 import (embedder, episode_accuracy, pk_batch, recall_at_1,
                                         split)

TITLE = "Fix tripletLoss"
LINK = "https://github.com/huggingface/sentence-transformers/pull/455"
EXPECTED = ("TRIPLET_BATCH_WITHOUT_POSITIVES",)
STEPS = 300
MARGIN = 0.5
CLASSES, PER_EXAMPLE = 10, 4


def batch_hard_triplet_loss(labels, embeddings):
    d = torch.cdist(embeddings, embeddings)
    same = labels.unsqueeze(0) == labels.unsqueeze(1)
    hardest_positive = (d * same.float()).max(1).values        # the anchor itself if alone
    hardest_negative = (d + same.float() * d.max().detach()).min(1).values
    return (hardest_positive - hardest_negative + MARGIN).clamp_min(0).mean()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x_train, y_train, x_test, y_test = split(0)
    model = embedder()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            examples = pk_batch(y_train, CLASSES, PER_EXAMPLE, rng).view(CLASSES, PER_EXAMPLE)
            rows = examples.reshape(-1) if fixed else examples[:, 0]   # BUG: first text only
            loss = batch_hard_triplet_loss(y_train[rows], model(x_train[rows]))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_recall_at_1 = recall_at_1(model, x_test, y_test)
    mon.held_out_episode_accuracy = episode_accuracy(model, x_test, y_test, rng)
    return mon
