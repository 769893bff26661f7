"""A prototypical loss whose "distance matrix" is taken over the wrong axis. It is meant to
be (N, N): the squared distance from each class's query embedding to each class's
prototype, with the diagonal as the right answers. It is written with
``F.pairwise_distance(query.unsqueeze(-1), proto.unsqueeze(-1).transpose(0, 2))``, which
in current PyTorch broadcasts (N, D, 1) against (1, D, N) and reduces the LAST axis: the
result is (N, D), entry (i, k) the spread of feature k between query i and all prototypes.
Cross-entropy then reads the D features as N "classes" (no error while D >= N), so the loss
trains each query's i-th feature to sit near every prototype's i-th feature - nothing that
separates classes. The loss falls and training goes on; what the embedder learns is poor.

Reported: "Shouldn't Prototypical loss use torch.cdist instead of F.pairwise_distance?" -
https://github.com/clovaai/voxceleb_trainer/issues/169 (voxceleb_trainer's
``loss/proto.py``: "the output shape will be (N, D) (with D the output dimension of the
model) and the following loss computation is not coherent"; the line was right when
``pairwise_distance`` reduced dim 1, and silently changed meaning once PyTorch made it
reduce the last dim; the fix is ``torch.cdist(out_positive, out_anchor) ** 2``). Here the digits: each
step one query and one support image of each of the 10 digits (voxceleb's M = 2
utterances per speaker), an MLP embedder of 16 numbers, Adam. Fix: the (N, N) matrix from
``torch.cdist``.

Measured (300 steps, 597 held-out digits; leave-one-out nearest-neighbour accuracy, and
5-way 1-shot nearest-prototype accuracy over 200 held-out episodes): seed 0, recall@1 0.76
for the bug against 0.97 for the fixed twin, episodes 0.57 against 0.95; seeds shifted by
1000, recall@1 0.78 against 0.96, episodes 0.50 against 0.94.
"""
import numpy as np
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._ml167 import (embedder, episode_accuracy, pk_batch, recall_at_1,
                                         split)

TITLE = "Shouldn't Prototypical loss use torch.cdist instead of F.pairwise_distance?"
LINK = "https://github.com/clovaai/voxceleb_trainer/issues/169"
EXPECTED = ("DISTANCE_MATRIX_OVER_FEATURE_AXIS", "LOSS_BROADCAST_OVER_BATCH")
STEPS = 300
CLASSES = 10


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x_train, y_train, x_test, y_test = split(0)
    model = embedder()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            rows = pk_batch(y_train, CLASSES, 2, rng)
            z = model(x_train[rows]).view(CLASSES, 2, -1)
            anchor, positive = z[:, 0], z[:, 1]      # one support, one query per class
            if fixed:
                logits = -torch.cdist(positive, anchor) ** 2                       # (N, N)
            else:                                    # BUG: (N, D, 1) vs (1, D, N) -> (N, D)
                logits = -F.pairwise_distance(positive.unsqueeze(-1),
                                              anchor.unsqueeze(-1).transpose(0, 2)) ** 2
            loss = F.cross_entropy(logits, torch.arange(CLASSES))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_recall_at_1 = recall_at_1(model, x_test, y_test)
    mon.held_out_episode_accuracy = episode_accuracy(model, x_test, y_test, rng)
    return mon
