"""An MNIST-bags style loader that fills each bag with instances drawn at random from the
whole training set and labels it positive when the target digit is among them. With one
digit in ten being the target, a bag of 40 instances misses it with probability
0.9^40 = 1.5%: nearly every training bag is positive. The network learns to answer
"positive" whatever the bag holds; the training loss is small from the start and keeps
falling, and on a balanced held-out set half the answers are wrong.

Reported: "the problem of mean bag length" -
https://github.com/AMLab-Amsterdam/AttentionDeepMIL/issues/5 (the README warns that the mean
bag length "shouldn't be much larger than 10"; a user: "for higher bag sizes I'm seeing
nearly exclusively positive ground truth bags (as to be expected when sampling for n > 10
instances and a chance of 1/10 to draw a positive sample) leading to the model overfitting
on solely positive predictions"; the author then published the loader used in the paper,
which balances the bags). Here bags of 40 8x8 digits with the target 9, 600 training
bags, attention MIL (instance encoder, tanh attention, bag classifier), Adam, 16 bags a
step; the held-out set is 400 balanced bags. Fix: build half the bags with the target
(1 to 4 times) and half without it.

Measured (300 steps; 99% of the buggy training bags are positive): balanced held-out bag
accuracy 0.50 with the bug against 0.98 for the fixed twin; seeds + 1000: 0.49 vs 0.84.
"""
import numpy as np
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._mil import AttentionMIL, bag_accuracy, digits_split, index_bags

TITLE = "the problem of mean bag length"
LINK = "https://github.com/AMLab-Amsterdam/AttentionDeepMIL/issues/5"
EXPECTED = ("TARGETS_ALL_ONE_CLASS",)
STEPS = 300
BAG_LENGTH = 40
TARGET = 9
BAGS_PER_STEP = 16


def training_bags(y, count, fixed, rng):
    if fixed:
        return index_bags(y, count, BAG_LENGTH, TARGET, seed=1, targets_in_positive=(1, 4))
    # BUG: instances drawn at random from the whole set; the label follows
    rows = torch.from_numpy(rng.integers(0, len(y), (count, BAG_LENGTH)))
    return rows, (y[rows] == TARGET).any(1).float()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x, y, x_held, y_held = digits_split()
    rows, labels = training_bags(y, 600, fixed, rng)
    held_rows, held_labels = index_bags(y_held, 400, BAG_LENGTH, TARGET, seed=2,
                                        targets_in_positive=(1, 4))
    model = AttentionMIL()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            chosen = torch.from_numpy(rng.choice(len(rows), BAGS_PER_STEP, replace=False))
            loss = F.binary_cross_entropy_with_logits(model(x[rows[chosen]]), labels[chosen])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.positive_share = labels.mean().item()
    mon.held_out_bag_accuracy = bag_accuracy(model, x_held[held_rows], held_labels)
    return mon
