"""An anchor detector's per-image target assignment loops over the wrong dimension: the
loop that fills each image's anchor labels and box targets runs ``for b in
range(images[0].size(0))`` - the first image's channel count (1) - instead of over the
batch. Only image 0 of every batch gets its object anchors marked; the other 31 images
keep the all-background labels the target tensors were initialised with, and their
box-regression weights stay zero. The objectness head is told, 31 times out of 32, that
the anchor sitting on the object is background, learns low scores everywhere, and the
loss falls nicely. Nothing errors: the shapes all fit.

Reported: "process_boxes() bug: does not iterate over all samples in the batch" -
https://github.com/MichalBusta/E2E-MLT/issues/22 (E2E-MLT's train.py loops ``for bid in
range(iou_pred[0].size(0))`` while iou_pred[0] is one sample, so its size(0) is the single
channel, not the batch: only the first sample's boxes are processed; the maintainer:
"sure, thanks!"). Here: noisy 16x16 images with one bright rectangle, a small fully
convolutional detector over a 4x4 grid with two square anchors per cell, IoU thresholds
0.5 / 0.4 (the best anchor always positive), BCE objectness over positives and negatives,
smooth-L1 offsets on the positives. Fix: loop over the batch (``range(len(images))``).

Measured (300 Adam steps, batch 32, 2,000 training scenes, 500 held out): the share of
held-out scenes whose top-scoring anchor has an objectness above 0.5 - seed 0: 0.00 for the
bug against 0.77 for the fixed twin (mean top score 0.02 against 0.72); the top anchor's
decoded box overlaps the object by a mean IoU of 0.11 against 0.70 (IoU > 0.5 on 1% of
scenes against 92%). Seeds shifted by 1000: 0.00 against 0.80 (top score 0.01 against
0.72), IoU 0.15 against 0.65 (4% against 85% above 0.5).
"""
import numpy as np
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._det159 import (Detector, anchors, assign, batches,
                                          best_box_quality, scenes)

TITLE = "process_boxes() bug: does not iterate over all samples in the batch"
LINK = "https://github.com/MichalBusta/E2E-MLT/issues/22"
EXPECTED = ("TARGETS_FILLED_FOR_FIRST_SAMPLE_ONLY",)
STEPS = 300
TRAIN, HELD_OUT = 2000, 500


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    images, boxes = scenes(TRAIN + HELD_OUT, np.random.default_rng(0))
    priors = anchors()
    model = Detector()
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in batches(TRAIN, steps):
            x, gt = images[index], boxes[index]
            labels = torch.zeros(len(x), len(priors))          # all background to start
            targets = torch.zeros(len(x), len(priors), 4)
            # BUG (fixed=False): images[0].size(0) is the first image's channel count, 1
            for b in range(len(x) if fixed else x[0].size(0)):
                labels[b], targets[b] = assign(gt[b], priors)
            logits, offsets = model(x)
            scored = labels >= 0
            positive = labels == 1
            loss = F.binary_cross_entropy_with_logits(logits[scored], labels[scored])
            if positive.any():
                loss = loss + F.smooth_l1_loss(offsets[positive], targets[positive])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    quality, hits, score = best_box_quality(model, images[TRAIN:], boxes[TRAIN:])
    mon.held_out_box_iou, mon.held_out_iou_over_half, mon.held_out_top_score = \
        quality, hits, score
    with torch.no_grad():
        top = torch.sigmoid(model(images[TRAIN:])[0].max(1).values)
    mon.held_out_found = round(float((top > 0.5).float().mean()), 3)
    return mon
