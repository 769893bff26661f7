"""Pixels outside the surveyed area carry the no-data label -100, but the dataset normalises
the masks with np.clip(mask, 0, num_classes - 1): every no-data pixel becomes class 0 and is
trained as that class, whatever land cover the imagery shows there.

Reported: "Ignore index functionality" - https://github.com/opengeos/geoai/issues/765 (for
multi-class segmentation SemanticSegmentationDataset clips label masks to [0, num_classes-1],
so "any ignored/no-data label such as PyTorch's default -100 is clipped to class 0. Those
pixels are then trained as background rather than ignored", which "can significantly affect
training when masks contain large no-data/ignore regions, which is common in geospatial
segmentation"; fixed by threading ignore_index into the loss, PR #766). Here 8x8 tiles of ten
synthetic Sentinel-2 bands whose labels cover only the west part of each tile (on average three
eighths), a per-pixel segmentation net (1x1 convolutions) and Adam. Fix: keep -100 in the masks
so that CrossEntropyLoss (ignore_index=-100) leaves those pixels out.

Measured harm (held-out pixel accuracy against complete land-cover maps, 100 tiles): 0.21 vs
0.93 (the bug run calls nearly every pixel class 0); seeds + 1000: 0.19 vs 0.93.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._rs import CLASSES, accuracy, pixel_fcn, tiles

TITLE = "Ignore index functionality"
LINK = "https://github.com/opengeos/geoai/issues/765"
EXPECTED = ("CONFLICTING_LABELS_ON_IDENTICAL_INPUTS", "PADDING_NOT_MASKED")
STEPS = 200
BATCH = 16
NODATA = -100


def surveyed(n, size=8):
    """Each tile's labels reach from the west edge to a random column (1 to 5 of 8)."""
    reach = torch.randint(1, 6, (n, 1, 1))
    return torch.arange(size).view(1, 1, size) < reach


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    dn, truth = tiles(600)
    dn_test, truth_test = tiles(100)
    mask = torch.where(surveyed(len(truth)).expand_as(truth), truth, NODATA)
    if not fixed:
        mask = mask.clamp(0, len(CLASSES) - 1)   # BUG: no-data (-100) becomes class 0
    mean, std = dn.mean((0, 2, 3), keepdim=True), dn.std((0, 2, 3), keepdim=True)
    x, x_test = (dn - mean) / std, (dn_test - mean) / std
    model = pixel_fcn()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.CrossEntropyLoss(ignore_index=NODATA)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            index = torch.randint(len(x), (BATCH,))
            loss = loss_fn(model(x[index]), mask[index])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, x_test, truth_test)
    return mon
