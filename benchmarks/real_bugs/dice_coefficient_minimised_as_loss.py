"""A hand-written Dice loss returns the Dice coefficient itself, not 1 - Dice: the
optimizer MINIMISES the overlap between the predicted mask and the true one. The printed
loss starts near 0.3 and falls towards 0 like any healthy loss, while the network learns
to paint the background and leave the objects empty.

Reported: "Negative loss" -
https://github.com/akirasosa/mobile-semantic-segmentation/issues/24 (a user of the repo's
hair-segmentation training saw a loss that made no sense; the maintainer's answer: "Maybe
your loss function is not ```1 - dice coef```, but ```dice coef```."). Here a
first-tutorial U-Net (benchmarks/real_bugs/_beginner_unet.py) returning logits, one
foreground class on 16x16 noisy scenes, the soft Dice of sigmoid probabilities alone,
Adam. Fix: ``return 1 - dice``.

Measured (250 steps, batch 16, 256 held-out scenes; foreground IoU of sigmoid > 0.5):
seed 0, 0.000 for the bug against 0.908 for the fixed twin; seeds shifted by 1000, 0.000
against 0.876.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._beginner_unet import TutorialUNet, batches, mean_iou, scenes

TITLE = "Negative loss"
LINK = "https://github.com/akirasosa/mobile-semantic-segmentation/issues/24"
EXPECTED = ("LOSS_SIGN_FLIPPED",)
STEPS = 250


def dice_loss(logits, target, smooth=1.0, fixed=False):
    probability = torch.sigmoid(logits).reshape(-1)
    target = target.reshape(-1)
    intersection = (probability * target).sum()
    dice = (2 * intersection + smooth) / (probability.sum() + target.sum() + smooth)
    return 1 - dice if fixed else dice                # BUG: the coefficient, not 1 - it


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    images, labels = scenes(1024, binary=True, seed=0)
    held_images, held_labels = scenes(256, binary=True, seed=1)
    model = TutorialUNet(out=1)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(images, labels, steps):
            loss = dice_loss(model(xb)[:, 0], yb.float(), fixed=fixed)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        probability = torch.sigmoid(model(held_images)[:, 0])
        mon.held_out_foreground_iou = mean_iou((probability > 0.5).long(), held_labels, 2)
    return mon
