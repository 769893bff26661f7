"""An anchor detector's box-regression loss is taken over every sampled anchor - positives
AND negatives - instead of the positives alone. A background anchor has no box of its own;
its "target" is the offset to whichever ground-truth box the matcher found nearest, often
several anchor widths away and with log-size ratios of +-1. Those targets far outnumber the
positives' (here 10 to 30 negatives for each positive), so the head spends itself on
regressing from empty cells towards a distant object, and the box of the anchor that does
sit on the object comes out worse. Training runs and the loss falls; nothing errors.

Reported: "i think should use fg_keep for box regession instead of rpn_keep." -
https://github.com/eragonruan/text-detection-ctpn/issues/334 (CTPN's model_train.py
gathers the predicted boxes for the regression loss with rpn_keep - every anchor kept for
the classification loss, background included - where only the foreground anchors,
fg_keep, have meaningful targets; a second user agrees it is a slip, the loss's own
denominator already counts fg_keep). Here: noisy 16x16 images with one bright rectangle, a
small fully convolutional detector over a 4x4 grid with two square anchors per cell, IoU
thresholds 0.5 / 0.4 (the best anchor always positive), BCE objectness over positives and
negatives, smooth-L1 offsets. Fix: the smooth-L1 over the positive anchors only.

Measured (300 Adam steps, batch 32, 2,000 training scenes, 500 held out): held-out IoU of
the top-scoring anchor's decoded box with the true box - seed 0: 0.46 for the bug against
0.70 for the fixed twin (IoU > 0.5 on 44% of scenes against 92%); seeds shifted by 1000:
0.44 against 0.65 (43% against 85%). The objectness is unharmed (mean top score 0.75
against 0.72): the anchors are found, their boxes are off.
"""
import numpy as np
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._det159 import (Detector, anchors, assign, batches,
                                          best_box_quality, scenes)

TITLE = "i think should use fg_keep for box regession instead of rpn_keep."
LINK = "https://github.com/eragonruan/text-detection-ctpn/issues/334"
EXPECTED = ("BOX_LOSS_ON_BACKGROUND_ANCHORS",)
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
            assigned = [assign(box, priors) for box in gt]
            labels = torch.stack([a[0] for a in assigned])
            targets = torch.stack([a[1] for a in assigned])
            logits, offsets = model(x)
            kept = labels >= 0                      # rpn_keep: positives and negatives
            positive = labels == 1                  # fg_keep
            regressed = positive if fixed else kept  # BUG (fixed=False): background too
            loss = (F.binary_cross_entropy_with_logits(logits[kept], labels[kept])
                    + F.smooth_l1_loss(offsets[regressed], targets[regressed]))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    quality, hits, score = best_box_quality(model, images[TRAIN:], boxes[TRAIN:])
    mon.held_out_box_iou, mon.held_out_iou_over_half, mon.held_out_top_score = \
        quality, hits, score
    return mon
