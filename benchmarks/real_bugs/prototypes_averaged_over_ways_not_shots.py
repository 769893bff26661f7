"""A prototypical network whose class prototypes are the support embeddings' SUM divided by
the number of classes in the episode (N_c) instead of the number of shots per class (N_s).
Each prototype is the class mean shrunk toward the origin by N_s / N_c, so the squared
distances the softmax reads are measured to points that are not where any class lies; the
embedder has to bend its geometry to suit the shrunken prototypes. Training runs, the
loss falls, and the embedding comes out worse for nearest-neighbour and few-shot use.

Reported: "Query regarding computation of centroid vector" -
https://github.com/Hsankesara/Prototypical-Networks/issues/2 ("Why is the sum divided by
Nc (No. of classes per episode) instead of Ns (No. of samples per class) while calculating
centroid vector?"; the author: "You're right that it should be Ns. I have missed it").
Here the digits in 5-way 1-shot episodes with 5 queries per class (so the prototype is
shrunk five-fold), an MLP embedder of 16 numbers, squared Euclidean distances, Adam. Fix:
the support sum divided by the shots, the class mean.

Measured (300 episodes, 597 held-out digits; leave-one-out nearest-neighbour accuracy, and
5-way 1-shot nearest-prototype accuracy (true class means) over 200 held-out episodes):
seed 0, recall@1 0.90 for the bug against 0.98 for the fixed twin, episodes 0.86 against
0.93; seeds shifted by 1000, recall@1 0.90 against 0.95, episodes 0.90 against 0.94.
"""
import numpy as np
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._ml167 import embedder, episode_accuracy, recall_at_1, split

TITLE = "Query regarding computation of centroid vector"
LINK = "https://github.com/Hsankesara/Prototypical-Networks/issues/2"
EXPECTED = ("PROTOTYPES_SCALED_BY_WAYS_NOT_SHOTS",)
STEPS = 300
WAYS, SHOTS, QUERIES = 5, 1, 5


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x_train, y_train, x_test, y_test = split(0)
    labels = y_train.numpy()
    model = embedder()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    truth = torch.arange(WAYS).repeat_interleave(QUERIES)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            classes = rng.permutation(np.unique(labels))[:WAYS]
            rows = np.concatenate([rng.choice(np.flatnonzero(labels == c), SHOTS + QUERIES,
                                              replace=False) for c in classes])
            z = model(x_train[torch.from_numpy(rows)]).view(WAYS, SHOTS + QUERIES, -1)
            support, query = z[:, :SHOTS], z[:, SHOTS:].reshape(WAYS * QUERIES, -1)
            prototypes = support.sum(1) / (SHOTS if fixed else WAYS)   # BUG: / N_c
            loss = F.cross_entropy(-torch.cdist(query, prototypes) ** 2, truth)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_recall_at_1 = recall_at_1(model, x_test, y_test)
    mon.held_out_episode_accuracy = episode_accuracy(model, x_test, y_test, rng)
    return mon
