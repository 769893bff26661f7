"""Batch-all triplet loss given its labels as a column, shape (B, 1), where the mask code
expects a vector (B,). The valid-triplet mask compares ``labels[None] == labels[:, None]``
and expands it to (anchor, positive, negative); with a trailing axis every comparison
gains a dimension, the mask broadcasts to (B, B, B, B) against the (B, B, B) table of
``d(a, p) - d(a, n) + margin``, and the label test lands on indices shifted by one: a
triplet counts when its ANCHOR and "positive" come from DIFFERENT classes. No shape error
(broadcasting makes it fit), the loss sits near the margin with nearly every triplet
"active", and training pulls different digits together.

Reported: "fraction_positive increasing" -
https://github.com/omoindrot/tensorflow-triplet-loss/issues/51 (batch-all training where
"my fraction of positive triplets is always 1.0. The loss function oscillates around the
margin ... I've also checked that the embeddings do not collapse"; then "I solved the
problem. I was giving tensors with wrong shape to the function batch_all_triplet_loss()":
the repository's ``_get_triplet_mask`` expects labels of shape (batch_size,)). Here the
same masks written in torch, the digits in P x K batches (6 digits x 6 images), an MLP
embedder of 16 numbers, margin 0.5, Adam; labels as a (B, 1) column as a loader of
``[label]`` rows gives them. Fix: ``labels.view(-1)`` before the masks.

Measured (300 steps, 597 held-out digits; leave-one-out nearest-neighbour accuracy, and
5-way 1-shot nearest-prototype accuracy over 200 held-out episodes): seed 0, recall@1
0.32 for the bug against 0.97 for the fixed twin, episodes 0.23 against 0.97; seeds
shifted by 1000, recall@1 0.34 against 0.97, episodes 0.23 against 0.96.
"""
import numpy as np
import torch

import nndebug as nd
from benchmarks.real_bugs._ml167 import (embedder, episode_accuracy, pk_batch, recall_at_1,
                                         split)

TITLE = "fraction_positive increasing"
LINK = "https://github.com/omoindrot/tensorflow-triplet-loss/issues/51"
EXPECTED = ("TRIPLET_MASK_BROADCAST_FROM_COLUMN_LABELS", "LOSS_BROADCAST_OVER_BATCH")
STEPS = 300
MARGIN = 0.5


def batch_all_triplet_loss(labels, embeddings):
    """Mean over the positive (active) triplets, masks built as the repository builds them."""
    d = torch.cdist(embeddings, embeddings)
    table = d.unsqueeze(2) - d.unsqueeze(1) + MARGIN            # [a, p, n]
    eye = torch.eye(len(embeddings), dtype=torch.bool)
    distinct = ~eye.unsqueeze(2) & ~eye.unsqueeze(1) & ~eye.unsqueeze(0)
    same = labels.unsqueeze(0) == labels.unsqueeze(1)
    valid = same.unsqueeze(2) & ~same.unsqueeze(1)              # label(a) == label(p) != label(n)
    table = (table * (distinct & valid).float()).clamp_min(0)
    active = (table > 1e-16).float()
    return table.sum() / (active.sum() + 1e-16), float(active.sum() / (distinct & valid).sum())


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x_train, y_train, x_test, y_test = split(0)
    model = embedder()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            rows = pk_batch(y_train, 6, 6, rng)
            labels = y_train[rows].unsqueeze(1)                 # (B, 1), as the loader gives
            if fixed:
                labels = labels.view(-1)
            loss, _ = batch_all_triplet_loss(labels, model(x_train[rows]))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_recall_at_1 = recall_at_1(model, x_test, y_test)
    mon.held_out_episode_accuracy = episode_accuracy(model, x_test, y_test, rng)
    return mon
