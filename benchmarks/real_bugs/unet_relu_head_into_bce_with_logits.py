"""A binary U-Net whose last map goes through a ReLU before ``BCEWithLogitsLoss``. The
loss expects logits of either sign; after the ReLU every "logit" is >= 0, so sigmoid of it
is >= 0.5 and no pixel can be called background with confidence. Here the map is already
0 everywhere at the first step (the head's input is negative, where the ReLU passes no
gradient) and stays there: probability exactly 0.5 for every pixel, the loss pinned at
log 2 = 0.693 for all 300 steps, nothing segmented. Nothing errors and a loss is printed
every step.

Reported: "从 UNet 到 UCTransNet:一次分割项目中 BCE Loss 失效的踩坑记录" ("from UNet to
UCTransNet: a record of BCE loss failing in a segmentation project") -
http://www.dtcms.com/a/394596.html (a U-Net with BCE trained fine, but with UCTransNet /
TransFuse the loss stayed at about 0.693 and Dice/IoU near 0, the outputs lying in
0..1e-6: the last layer had a ReLU (or a Sigmoid) in front of BCEWithLogitsLoss; the fix
is to return the raw logits). Here a first-tutorial U-Net without normalisation layers
(benchmarks/real_bugs/_beginner_unet.py) segments 16x16 noisy scenes of rectangles as one
foreground class, Adam. Fix: no ReLU on the output map.

Measured (300 steps, batch 16, 256 held-out scenes; foreground IoU of sigmoid > 0.5):
seed 0, 0.000 for the bug against 0.859 for the fixed twin; seeds shifted by 1000, 0.000
against 0.862.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._beginner_unet import TutorialUNet, batches, mean_iou, scenes

TITLE = "从 UNet 到 UCTransNet:一次分割项目中 BCE Loss 失效的踩坑记录"
LINK = "http://www.dtcms.com/a/394596.html"
EXPECTED = ("DEAD_RELU", "OUTPUT_UNITS_WITHOUT_GRADIENT")
STEPS = 300


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    images, labels = scenes(1024, binary=True, sides=(2, 5), seed=0)
    held_images, held_labels = scenes(256, binary=True, sides=(2, 5), seed=1)
    # BUG (fixed=False): the network's last map goes through a ReLU before the loss ...
    model = TutorialUNet(out=1, final=None if fixed else nn.ReLU())
    criterion = nn.BCEWithLogitsLoss()          # ... that expects logits of either sign
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(images, labels, steps):
            loss = criterion(model(xb)[:, 0], yb.float())
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        probability = torch.sigmoid(model(held_images)[:, 0])
        mon.held_out_foreground_iou = mean_iou((probability > 0.5).long(), held_labels, 2)
    return mon
