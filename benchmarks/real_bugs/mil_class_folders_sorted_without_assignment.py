"""A whole-slide MIL feature script that names its classes from the data folders with
``sorted(classes)`` - whose result is thrown away - so the class index follows the
directory listing: "tumor" gets 0 and "normal" gets 1. The model is a max-pooling
instance classifier (a slide's logit is its highest-scoring patch, the MIL assumption that
a slide is positive when ANY patch is): with the labels this way round it must flag every
normal slide through some patch while keeping all patches of a tumour slide low - yet
tumour slides are mostly normal tissue. The labels are consistent and the loss falls, but
the network cannot express the inverted problem.

Reported: "SimClr -CAMELYON16" - https://github.com/binli123/dsmil-wsi/issues/10 (a user
trained the MIL part on Camelyon16 features and got AUC about 0.66, far from the paper; he
found that "your code will assign the label 1 for 'normal' and 0 'tumor' in camelyon16
dataset, which is because the sorting algorithm did not follow alphabetic order" and
suggested replacing ``sorted(num_classes)`` by ``num_classes.sort()``). Here a slide is a
bag of 10 digit tiles; a tumour slide holds the target digit (3) once or twice; the folders
are listed as ["tumor", "normal"]. Max-pooling MIL (instance MLP, max over the bag), Adam,
16 slides a step. Fix: ``classes.sort()`` (normal 0, tumor 1: the positive class is the
one some instance carries).

Measured (300 steps, 800 training slides, 400 held-out slides; accuracy against the labels
each run trained with): held-out slide accuracy 0.52 with the bug against 0.93 for the
fixed twin; seeds + 1000: 0.50 vs 0.96.
"""
import numpy as np
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._mil import MaxPoolMIL, bag_accuracy, digits_split, index_bags

TITLE = "SimClr -CAMELYON16"
LINK = "https://github.com/binli123/dsmil-wsi/issues/10"
EXPECTED = ("LABELS_MISALIGNED",)
STEPS = 300
TILES = 10
TARGET = 3
BAGS_PER_STEP = 16


def class_index(fixed):
    classes = ["tumor", "normal"]            # the order the directory listing gives
    if fixed:
        classes.sort()
    else:
        sorted(classes)                      # BUG: the sorted copy is discarded
    return {name: i for i, name in enumerate(classes)}


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x, y, x_held, y_held = digits_split()
    index = class_index(fixed)
    rows, tumour = index_bags(y, 800, TILES, TARGET, seed=1)
    held_rows, held_tumour = index_bags(y_held, 400, TILES, TARGET, seed=2)

    def to_label(is_tumour):
        return torch.where(is_tumour > 0, float(index["tumor"]), float(index["normal"]))

    bags, labels = x[rows], to_label(tumour)
    held_bags, held_labels = x_held[held_rows], to_label(held_tumour)
    model = MaxPoolMIL()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            chosen = torch.from_numpy(rng.choice(len(bags), BAGS_PER_STEP, replace=False))
            loss = F.binary_cross_entropy_with_logits(model(bags[chosen]), labels[chosen])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_bag_accuracy = bag_accuracy(model, held_bags, held_labels)
    return mon
