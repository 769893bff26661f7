"""A hand-written DiceLoss whose ``from_logits`` check is inverted: ``if not
self.from_logits: y_pred = sigmoid(y_pred)``. Used as documented, with a model that
returns logits and from_logits=True, the sigmoid is skipped and the Dice ratio is taken
on raw logits. Unbounded, possibly negative "probabilities" let the ratio leave [0, 1]:
negative logits shrink the denominator, and the loss swings below zero and back (at steps
0, 50, 100, 150: 1.03, -0.64, 0.25, 0.93; -0.10 at the end) while the masks never form.
Nothing errors.

Reported: "DiceLoss question in pretrained-backbones-unet/backbones_unet/model
/losses.py" - https://github.com/mberkay0/pretrained-backbones-unet/issues/7 (the line
`if not self.from_logits: y_pred = F.sigmoid(y_pred)` should apply the sigmoid when
from_logits is True - "there should be just 'if', instead of 'if not'"; a second user
agrees and writes a replacement Dice loss). Here a first-tutorial U-Net
(benchmarks/real_bugs/_beginner_unet.py) returning logits, one foreground class on 16x16
noisy scenes, the DiceLoss alone, Adam. Fix: `if self.from_logits:`.

Measured (300 steps, batch 16, 256 held-out scenes; foreground IoU of sigmoid > 0.5):
seed 0, 0.030 for the bug against 0.921 for the fixed twin; seeds shifted by 1000, 0.000
against 0.887.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._beginner_unet import TutorialUNet, batches, mean_iou, scenes


TITLE = "DiceLoss question in pretrained-backbones-unet/backbones_unet/model /losses.py"
LINK = "https://github.com/mberkay0/pretrained-backbones-unet/issues/7"
EXPECTED = ("LOSS_UNBOUNDED_BELOW",)
STEPS = 300


class DiceLoss(torch.nn.Module):
    def __init__(self, from_logits=True, smooth=1.0, inverted=True):
        super().__init__()
        self.from_logits, self.smooth, self.inverted = from_logits, smooth, inverted

    def forward(self, y_pred, y_true):
        # BUG (inverted=True): "if not self.from_logits" - the sigmoid is skipped exactly
        # when the predictions are logits
        squash = (not self.from_logits) if self.inverted else self.from_logits
        if squash:
            y_pred = torch.sigmoid(y_pred)
        y_pred, y_true = y_pred.reshape(-1), y_true.reshape(-1)
        intersection = (y_pred * y_true).sum()
        dice = (2 * intersection + self.smooth) / (y_pred.sum() + y_true.sum() + self.smooth)
        return 1 - dice


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    images, labels = scenes(1024, binary=True, seed=0)
    held_images, held_labels = scenes(256, binary=True, seed=1)
    model = TutorialUNet(out=1)                        # returns logits
    criterion = DiceLoss(from_logits=True, inverted=not fixed)
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
