"""A random horizontal flip that mirrors the image and maps the box's x corners as
``x1, x2 = W - x1, W - x2`` without swapping them: on every flipped sample the "left"
corner the network is taught is the box's right edge and the "right" corner its left
edge. A plain rectangle looks the same flipped or not, so the regressor cannot tell which
convention a sample used and learns the average of the two: both x corners drift to the
box's centre and the predicted boxes come out a sliver wide.

Reported: "[BUG] Logic error on random flip augmentation bounding box coordinates
computing" - https://github.com/Nota-NetsPresso/netspresso-trainer/issues/196
(``bbox[..., 0:4:2] = w - bbox[..., 0:4:2]`` in RandomHorizontalFlip "produces impossible
box cases" with x1 >= x2; the computed x coordinates "should be swapped each other", and
RandomVerticalFlip has the same error; fixed in PR #211). Here a small conv net regresses
the (x1, y1, x2, y2) corners, divided by the image size, of one bright rectangle in noisy
16x16 images, with a smooth-L1 loss and the flip drawn with probability 0.5. Fix:
``x1, x2 = W - x2, W - x1``.

Measured (200 steps, 512 held-out unflipped images): mean IoU of the predicted boxes with
the true ones 0.090 for the bug against 0.778 fixed at seed 0; seeds + 1000: 0.135 vs
0.750.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._box import BATCH, HELD_OUT, SIZE, iou, regressor, scenes

TITLE = ("[BUG] Logic error on random flip augmentation bounding box coordinates "
         "computing")
LINK = "https://github.com/Nota-NetsPresso/netspresso-trainer/issues/196"
EXPECTED = ("LABELS_MISALIGNED",)
STEPS = 200


def random_hflip(images, boxes, fixed):
    flip = torch.rand(len(images)) < 0.5
    images = torch.where(flip[:, None, None, None], images.flip(-1), images)
    mirrored = boxes.clone()
    if fixed:
        mirrored[:, [0, 2]] = SIZE - boxes[:, [2, 0]]
    else:
        mirrored[:, [0, 2]] = SIZE - boxes[:, [0, 2]]      # BUG: x1 and x2 not swapped
    return images, torch.where(flip[:, None], mirrored, boxes)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    model = regressor()
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            images, boxes = random_hflip(*scenes(BATCH), fixed)
            optimizer.zero_grad()
            loss = F.smooth_l1_loss(model(images), boxes / SIZE)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    images, boxes = scenes(HELD_OUT)
    with torch.no_grad():
        mon.box_iou = float(iou(model(images) * SIZE, boxes).mean())
    return mon
