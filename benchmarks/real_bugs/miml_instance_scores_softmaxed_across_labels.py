"""A deep multi-instance multi-label (DeepMIML) tagger that turns each instance's label
scores into a softmax ACROSS THE LABELS before taking, for every label, the maximum over
the bag's instances and training that against the bag's multi-hot row with binary
cross-entropy. The softmax makes the labels compete inside every instance: an instance
that sees two objects can give at most one of them more than 0.5, so a bag whose labels
outnumber its instances can never have them all predicted, and the loss keeps pushing
the instances to split their one unit of probability.

Reported: "Any reason to add softmax here? seems not intuitive and not stated in paper" -
https://github.com/kingfengji/DeepMIML/issues/4 (lib/deepmiml/deepmiml.py: the MIML
layers take the L x K sub-concept scores of every feature-map position, max-pool the K
sub-concepts, apply Activation("softmax") over the L labels of each position, then
max-pool over the positions; the author: "thresholding at 0.5 actually is quite robust
even for multi-label ... but only in a practical point of view. you could comment that
line off"). Here 2x2 digit collages with 10 labels "digit d appears"
(benchmarks/real_bugs/_mlb.py), the instances the collage's two halves (each seeing up to
two digits, as a conv5 position's receptive field sees several objects), an MLP giving
10 x 4 sub-concept scores per instance, BCELoss on the pooled bag scores, Adam; a label
predicted where its bag score is above 0.5. Fix: one sigmoid per label and instance (the
labels scored independently), the rest unchanged.

Measured (300 steps, 1,000 held-out collages): held-out micro-F1 0.68 for the bug
(recall 0.53) against 0.79 for the fixed twin (recall 0.71); seeds + 1000: 0.68 (recall
0.53) against 0.79 (recall 0.72).
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._mlb import batches, read_out, tag_data

TITLE = "Any reason to add softmax here? seems not intuitive and not stated in paper"
LINK = "https://github.com/kingfengji/DeepMIML/issues/4"
EXPECTED = ("MULTI_LABEL_WITH_CROSS_ENTROPY",)
STEPS = 300
LABELS = 10
SUBCONCEPTS = 4
INSTANCES = 2           # the collage's top and bottom halves, 128 pixels each


class DeepMIML(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.fixed = fixed
        self.instance = nn.Sequential(nn.Linear(256 // INSTANCES, 128), nn.ReLU(),
                                      nn.Linear(128, LABELS * SUBCONCEPTS))

    def forward(self, x):
        bags = x.view(len(x), INSTANCES, -1)
        cube = self.instance(bags).view(len(x), INSTANCES, LABELS, SUBCONCEPTS)
        table = cube.max(dim=3).values                      # (bags, instances, labels)
        if self.fixed:
            table = torch.sigmoid(table)
        else:           # BUG: the labels of each instance compete in one softmax
            table = torch.softmax(table, dim=2)
        return table.max(dim=1).values                      # (bags, labels)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x, y, x_test, y_test, _, _ = tag_data(rng)
    model = DeepMIML(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.BCELoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for rows in batches(len(x), steps, rng):
            loss = loss_fn(model(x[rows]), y[rows])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        predicted = model(x_test) > 0.5
    return read_out(mon, predicted, y_test)
