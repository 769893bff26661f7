"""Hard-negative mining that keeps ``negpos_ratio`` times as many negatives as an image has
positives - so an image with no object keeps none. SSD-style losses pick, per image, the
background anchors with the highest loss, ``num_neg = negpos_ratio * num_pos`` of them. For
every image without a ground-truth object ``num_pos`` is 0, the whole image is dropped from
the classification loss, and the background that only such images show is never taught:
the detector fires on it. The loss is normal (it is computed on the images that have
objects) and falls as usual.

Reported: "Hard Negative Mining problem" - https://github.com/VDIGPKU/M2Det/issues/121
(``num_neg = torch.clamp(self.negpos_ratio * num_pos, max=pos.size(1) - 1)``: "If positive
is 0, negative is also 0, which hinders negative learning and causes over-detection"; the
reporter's fix is a fixed minimum number of negatives per image). Here a toy detector:
each "image" is 16 anchors, each anchor an 8x8 digit, the object class is the digit 0;
half the training images hold 1-2 objects among backgrounds of digits 1-4, the other half
are object-free scenes of digits 5-9 (a different scene, as empty scenes are); a shared
MLP scores every anchor (object or background), cross-entropy over positives and the
mined negatives, negpos_ratio 3, Adam. Fix: at least 4 negatives per image.

Measured (600 steps of 16 images; on 400 held-out object-free scenes and 400 with objects,
all from digits never trained on: the share of empty scenes where the detector fires, its
per-anchor false-positive rate, and the recall of objects): seed 0, 29.5% of empty scenes
with a false detection for the bug against 0% for the fixed twin (anchors 2.1% against
0%, recall 0.99 both); seeds shifted by 1000, 28.3% against 0% (anchors 2.1% against 0%,
recall 1.00 against 0.97).
"""
import numpy as np
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import classification

TITLE = "Hard Negative Mining problem"
LINK = "https://github.com/VDIGPKU/M2Det/issues/121"
EXPECTED = ("HARD_NEGATIVES_EMPTY_FOR_IMAGES_WITHOUT_POSITIVES",)
STEPS = 600
ANCHORS, IMAGES, NEGPOS_RATIO, MIN_NEGATIVES = 16, 16, 3, 4
OBJECT = 0
BUSY_SCENE, EMPTY_SCENE = (1, 2, 3, 4), (5, 6, 7, 8, 9)


def scenes(x, y, count, rng, empty):
    """``count`` images of ANCHORS digits: (count, ANCHORS, 64) and 0/1 object labels."""
    by_class = {c: np.flatnonzero(y == c) for c in range(10)}
    rows, labels = [], []
    for _ in range(count):
        background = EMPTY_SCENE if empty else BUSY_SCENE
        classes = rng.choice(background, ANCHORS)
        if not empty:
            spots = rng.choice(ANCHORS, rng.integers(1, 3), replace=False)
            classes[spots] = OBJECT
        rows.append([rng.choice(by_class[c]) for c in classes])
        labels.append(classes == OBJECT)
    rows = torch.as_tensor(np.array(rows))
    return x[rows], torch.as_tensor(np.array(labels), dtype=torch.int64)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x, y = classification()
    order = rng.permutation(len(x))
    train, test = order[:1200], order[1200:]
    x_train, y_train = x[train], y[train].numpy()
    x_test, y_test = x[test], y[test].numpy()
    model = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU(),
                                torch.nn.Linear(64, 2))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            busy = scenes(x_train, y_train, IMAGES // 2, rng, empty=False)
            empty = scenes(x_train, y_train, IMAGES // 2, rng, empty=True)
            images = torch.cat([busy[0], empty[0]])
            labels = torch.cat([busy[1], empty[1]])
            logits = model(images)                               # (images, anchors, 2)
            loss_all = F.cross_entropy(logits.transpose(1, 2), labels, reduction="none")
            positive = labels > 0
            num_pos = positive.sum(1, keepdim=True)
            num_neg = (NEGPOS_RATIO * num_pos).clamp(max=ANCHORS - 1)
            if fixed:
                num_neg = num_neg.clamp(min=MIN_NEGATIVES)
            # BUG (fixed=False): num_neg is 0 for every image without an object
            ranking = loss_all.detach().masked_fill(positive, 0.0)
            rank = ranking.argsort(1, descending=True).argsort(1)
            negative = rank < num_neg
            chosen = positive | negative
            loss = loss_all[chosen].sum() / num_pos.sum().clamp(min=1)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    test_rng = np.random.default_rng(12345)
    with torch.no_grad():
        empty_x, _ = scenes(x_test, y_test, 400, test_rng, empty=True)
        busy_x, busy_y = scenes(x_test, y_test, 400, test_rng, empty=False)
        fired_empty = model(empty_x).argmax(-1)
        fired_busy = model(busy_x).argmax(-1)
    mon.held_out_false_positive_rate = fired_empty.float().mean().item()
    mon.held_out_empty_scenes_with_detection = fired_empty.any(1).float().mean().item()
    mon.held_out_object_recall = fired_busy[busy_y > 0].float().mean().item()
    return mon
