"""Camera frames resized from 16:9 to a square network input while their boxes stay in
the frame's pixels: the boxes are then normalised by the resized image's size, so x
coordinates come out three times too large and y coordinates 1.7 times, and a box that is
drawn back on the resized image lands far to the right of and below its object (or off
the image altogether). The network fits the stretched targets - they are a fixed function
of the image - so the training loss looks healthy while no predicted box covers its
object.

Reported: "bounding box error" - https://github.com/udacity/nd013-c1-vision-starter/issues/3
(the course's data preparation resizes the Waymo 1920x1080 images to 640x640 "but not for
the bounding box"; "the bounding box should be resized and normalized in 1920x1080"; the
maintainers: "good catch! This is now fixed."). Here noisy 48x27 frames holding one
bright rectangle are average-pooled to 16x16 and a small conv net regresses the
normalised corners (x1, y1, x2, y2) with a smooth-L1 loss. Fix: divide the box's x by the
frame's width and its y by the frame's height (equivalently, scale it to the resized
image first).

Measured (200 steps, 512 held-out frames): mean IoU of the predicted boxes, drawn on the
resized image, with the objects' true boxes there 0.011 for the bug against 0.674 fixed
at seed 0; seeds + 1000: 0.013 vs 0.661.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._box import BATCH, HELD_OUT, SIZE, iou, regressor, scenes

TITLE = "bounding box error"
LINK = "https://github.com/udacity/nd013-c1-vision-starter/issues/3"
EXPECTED = ("LABELS_MISALIGNED",)
STEPS = 200
FRAME_W, FRAME_H = 48, 27           # the camera's 16:9 frames (1920x1080, scaled down)
FRAME = torch.tensor([FRAME_W, FRAME_H, FRAME_W, FRAME_H], dtype=torch.float32)


def frames(n):
    """Frames resized to the network's SIZE x SIZE, and their boxes in frame pixels."""
    images, boxes = scenes(n, height=FRAME_H, width=FRAME_W)
    return F.adaptive_avg_pool2d(images, SIZE), boxes


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    model = regressor()
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            images, boxes = frames(BATCH)
            if fixed:
                targets = boxes / FRAME
            else:
                targets = boxes / SIZE      # BUG: frame pixels over the resized size
            optimizer.zero_grad()
            loss = F.smooth_l1_loss(model(images), targets)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    images, boxes = frames(HELD_OUT)
    with torch.no_grad():                   # drawn on the resized SIZE x SIZE image
        mon.box_iou = float(iou(model(images) * SIZE, boxes / FRAME * SIZE).mean())
    return mon
