"""A siamese network whose two towers share no weights: the embedder is built twice, once
for each side of the pair (in TensorFlow, the second tower built in a new variable scope
or without ``reuse=True``; in torch, two instances of the same class). The contrastive loss
only ever compares a LEFT embedding with a RIGHT one, so the two towers learn two different
maps that agree with each other on the pairs, and nothing makes either map put two digits
of one class together on its own. The loss falls as a shared network's does; the damage
shows where the model is used - one tower embedding a query and a gallery alike.

Reported: "hello,i think your model did't share weight between network o1 and o2,there
are two different network" - https://github.com/Shicoder/DeepLearning_Demo/issues/3 (the
demo's siamese network builds its two branches o1 and o2 as separate networks, so the
weights are not tied as a siamese network requires; the fix is to build one network and
apply it to both inputs - in TensorFlow the same variable scope with ``reuse=True``).
Here the digits: pairs drawn half from one class and half from two, an MLP embedder (16
numbers), Euclidean distance, contrastive loss with margin 1, RMSprop. Fix: one embedder
applied to both sides of the pair.

Measured (300 steps of 128 pairs, 597 held-out digits embedded by the left tower - the one
kept as "the" embedder; leave-one-out nearest-neighbour accuracy, and 5-way 1-shot
nearest-prototype accuracy over 200 held-out episodes): seed 0, recall@1 0.94 for the bug
against 0.98 for the fixed twin, episodes 0.92 against 0.99; seeds shifted by 1000,
recall@1 0.95 against 0.98, episodes 0.94 against 0.98.
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._ml167 import (embedder, episode_accuracy, pair_batch,
                                         recall_at_1, split)

TITLE = ("hello,i think your model did't share weight between network o1 and o2,there are two "
         "different network")
LINK = "https://github.com/Shicoder/DeepLearning_Demo/issues/3"
EXPECTED = ("SIAMESE_TOWERS_NOT_SHARED",)
STEPS = 300
MARGIN = 1.0


class Siamese(nn.Module):
    def __init__(self, shared):
        super().__init__()
        self.left = embedder()
        self.right = self.left if shared else embedder()   # BUG when not shared: a 2nd net

    def forward(self, a, b):
        return self.left(a), self.right(b)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x_train, y_train, x_test, y_test = split(0)
    model = Siamese(shared=fixed)
    optimizer = torch.optim.RMSprop(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            left, right, same = pair_batch(y_train, 128, rng)     # 1 = same digit
            a, b = model(x_train[left], x_train[right])
            d = (a - b).pow(2).sum(1).clamp_min(1e-7).sqrt()
            loss = (same * d ** 2 + (1 - same) * (MARGIN - d).clamp_min(0) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_recall_at_1 = recall_at_1(model.left, x_test, y_test)
    mon.held_out_episode_accuracy = episode_accuracy(model.left, x_test, y_test, rng)
    return mon
