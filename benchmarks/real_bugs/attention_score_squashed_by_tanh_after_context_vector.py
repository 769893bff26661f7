"""Attention pooling whose instance score is ``tanh(h . w)``: the tanh is applied AFTER the
product with the context vector instead of to the hidden projection before it, so every
score lies in [-1, 1] and no instance can get more than e^2 (about 7.4) times the weight of
another. In a bag of 48 instances with one that matters, that instance keeps at most about
a seventh of the weight; the pooled vector is mostly the average of the rest. The network
trains, the loss falls, and the attention cannot single out the key instance.

Reported: "Consistency with the article (HATT)" -
https://github.com/richliao/textClassifier/issues/24 (the reporter: the tanh "is applied
over the multiplication with the context vector ... the range of values ... may be well
over 1 or below -1, which simply 'squeezes' all these values to (+-)0.99-1, and by that
eliminates the effect of attention"; the paper's score is u_it = tanh(W h_it + b), then
u_it . u_w). Here a bag is 48 digit tiles, positive when it holds the target digit (3)
once; attention MIL (instance encoder, attention, bag classifier), Adam, 16 bags a step.
Fix: score = w . tanh(V h + b) (Ilse et al. / HAN), unbounded.

Measured (400 steps, 800 training bags, 400 held-out bags): held-out bag accuracy 0.63 with
the bug against 0.92 for the fixed twin; seeds + 1000: 0.50 vs 0.94.
"""
import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._mil import bag_accuracy, digits_split, index_bags

TITLE = "Consistency with the article (HATT)"
LINK = "https://github.com/richliao/textClassifier/issues/24"
EXPECTED = ("ATTENTION_UNIFORM",)
STEPS = 400
INSTANCES = 48
TARGET = 3
BAGS_PER_STEP = 16


class AttentionPool(nn.Module):
    def __init__(self, fixed, features=64, hidden=64, attention=32):
        super().__init__()
        self.fixed = fixed
        self.encode = nn.Sequential(nn.Linear(features, hidden), nn.ReLU())
        self.project = nn.Linear(hidden, attention)
        self.context = nn.Linear(attention, 1, bias=False)
        self.classify = nn.Linear(hidden, 1)

    def forward(self, bags):
        h = self.encode(bags)
        if self.fixed:
            scores = self.context(torch.tanh(self.project(h)))
        else:   # BUG: the tanh squashes the score itself into [-1, 1]
            scores = torch.tanh(self.context(self.project(h)))
        weights = torch.softmax(scores.squeeze(-1), dim=1)
        return self.classify((weights.unsqueeze(-1) * h).sum(1)).squeeze(-1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x, y, x_held, y_held = digits_split()
    rows, labels = index_bags(y, 800, INSTANCES, TARGET, seed=1, targets_in_positive=(1, 1))
    held_rows, held_labels = index_bags(y_held, 400, INSTANCES, TARGET, seed=2,
                                        targets_in_positive=(1, 1))
    model = AttentionPool(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            chosen = torch.from_numpy(rng.choice(len(rows), BAGS_PER_STEP, replace=False))
            loss = F.binary_cross_entropy_with_logits(model(x[rows[chosen]]), labels[chosen])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_bag_accuracy = bag_accuracy(model, x_held[held_rows], held_labels)
    return mon
