"""A two-scale MIL feature pipeline that concatenates each low-magnification patch's feature
with the features of its high-magnification patch, but computes the high-magnification
features through a DataLoader built with ``shuffle=True``: the features come back in a
random order while the low-magnification patches are walked in their own order, so each
instance pairs one patch's low-res context with ANOTHER patch's high-res detail. Every
bag still holds the right set of low-res features and the right set of high-res features -
only which belongs with which is lost. Training runs, the loss falls a little, and the
network cannot learn a label that depends on the pairing.

Reported: "shuffle in computing features" - https://github.com/binli123/dsmil-wsi/issues/19
(the reporter: ``bag_dataset`` sets the dataloader's ``shuffle`` to True, so the order of
``feats_list`` differs from ``low_patches`` in ``compute_tree_feats`` and "when you
concatenate the high resolution features to low, it will mismatch"; the author: "Good
catch. I think you are right, I have fixed that."). Here a slide is a bag of 12 patches;
a patch's low-res feature is its tissue region (4 regions, one-hot, with noise), its
high-res feature an 8x8 digit. A slide is positive when a target digit (3) lies in region 0
("tumour cells inside the region that matters"); every slide holds two 3s and some region-0
patches, so only the pairing tells the classes apart. Attention MIL (instance encoder,
tanh attention, bag classifier), Adam, 16 bags a step. Fix: ``shuffle=False`` when
computing the high-res features (pair patch i with patch i).

Measured (300 steps, 800 training bags, 400 held-out bags built by the same pipeline):
held-out bag accuracy 0.52 with the bug against 0.93 for the fixed twin; seeds + 1000:
0.56 vs 0.92.
"""
import numpy as np
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._mil import AttentionMIL, bag_accuracy, digits_split

TITLE = "shuffle in computing features"
LINK = "https://github.com/binli123/dsmil-wsi/issues/19"
EXPECTED = ("LABELS_MISALIGNED",)
STEPS = 300
PATCHES = 12
REGIONS = 4
TARGET = 3
BAGS_PER_STEP = 16


def slides(x, y, count, rng):
    """Per slide: low-res region ids (count, PATCHES), high-res digit rows, and labels."""
    has = np.flatnonzero(y.numpy() == TARGET)
    without = np.flatnonzero(y.numpy() != TARGET)
    regions = rng.integers(1, REGIONS, (count, PATCHES))
    rows = rng.choice(without, (count, PATCHES))
    labels = rng.random(count) < 0.5
    for b in range(count):
        spots = rng.choice(PATCHES, 4, replace=False)
        rows[b, spots[:2]] = rng.choice(has, 2)              # two 3s in every slide
        regions[b, spots[2:]] = 0                            # two region-0 patches
        if labels[b]:
            regions[b, spots[0]] = 0                         # a 3 inside region 0 ...
            regions[b, spots[3]] = rng.integers(1, REGIONS)  # ... still two region-0 patches
    return torch.from_numpy(regions), torch.from_numpy(rows), torch.from_numpy(labels).float()


def tree_features(x, regions, rows, fixed, rng):
    """Concatenate each patch's low-res feature with its high-res feature."""
    low = F.one_hot(regions, REGIONS).float() * 3 + 0.3 * torch.from_numpy(
        rng.standard_normal(regions.shape + (REGIONS,))).float()
    high = x[rows]                                            # (count, PATCHES, 64)
    if not fixed:   # BUG: the high-res features come back from a shuffled DataLoader
        order = torch.from_numpy(np.argsort(rng.random(rows.shape), axis=1))
        high = torch.gather(high, 1, order.unsqueeze(-1).expand_as(high))
    return torch.cat([low, high], dim=-1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x, y, x_held, y_held = digits_split()
    regions, rows, labels = slides(x, y, 800, rng)
    bags = tree_features(x, regions, rows, fixed, rng)
    held_regions, held_rows, held_labels = slides(x_held, y_held, 400, rng)
    held_bags = tree_features(x_held, held_regions, held_rows, fixed, rng)
    model = AttentionMIL(features=64 + REGIONS)
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
