"""A binary U-Net whose forward already ends in a sigmoid, trained with
``BCEWithLogitsLoss``, which applies a second one. The loss sees sigmoid(sigmoid(z)), a
"probability" that can only move between 0.5 and 0.73: a background pixel can never cost
less than log 2, a foreground pixel never less than 0.31, so the loss stalls far above
zero and the gradient that reaches the network passes through the first sigmoid's
saturation as well. Nothing errors and the loss still drifts down; the masks are blurred
and the small objects are lost next to the twin without the extra sigmoid.

Reported: "bug: bceloss not decrease" -
https://github.com/avBuffer/UNet3plus_pth/issues/23 (the reporter found that the UNet 3+
model returns the sigmoid of its last map while train.py trains it with a BCE loss that
applies its own sigmoid, so the sigmoid is applied twice and the loss may not go down;
the fix is to return the raw map). Here a small U-Net (benchmarks/real_bugs/_seg154.py)
segments 16x16 noisy scenes of small filled and outlined rectangles (1 to 3 pixels a
side) as one foreground class, Adam. Fix: the model returns logits (no final sigmoid);
its predictions threshold sigmoid(logits) at 0.5, as the bug run thresholds its output.

Measured (300 steps, batch 16, 256 held-out scenes; foreground IoU of the thresholded
masks): seed 0, 0.588 for the bug against 0.669 for the fixed twin; seeds shifted by 1000,
0.591 against 0.653.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._seg154 import UNet, batches, mean_iou, scenes

TITLE = "bug: bceloss not decrease"
LINK = "https://github.com/avBuffer/UNet3plus_pth/issues/23"
EXPECTED = ("DOUBLE_SIGMOID",)
STEPS = 300


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    images, labels = scenes(1024, binary=True, sides=(1, 3), seed=0)
    held_images, held_labels = scenes(256, binary=True, sides=(1, 3), seed=1)
    # BUG (fixed=False): the network's forward ends in a sigmoid ...
    model = UNet(out=1, final=None if fixed else nn.Sigmoid())
    criterion = nn.BCEWithLogitsLoss()          # ... and the loss applies another
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(images, labels, steps):
            loss = criterion(model(xb)[:, 0], yb.float())
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        out = model(held_images)[:, 0]
        probability = torch.sigmoid(out) if fixed else out
        mon.held_out_foreground_iou = mean_iou((probability > 0.5).long(), held_labels, 2)
    return mon
