"""A multi-class soft Dice loss fed the network's raw logits instead of its softmax
probabilities. The Dice ratio is only a measure of overlap when every pixel's class
scores are non-negative and sum to one; on logits, the "overlap" and "area" sums can take
any sign and size, so the loss can be lowered by inflating or shrinking logits rather
than by putting each pixel in its class (the denominator can even cross zero). The loss
still falls and nothing errors; the argmax maps are much worse than the same net trained
with the softmax in front of the Dice.

Reported: "Dice loss operating on logits rather than predictions" -
https://github.com/jakeret/tf_unet/issues/15 (the reporter: the softmax of the logits must
be taken before computing the Dice loss; the maintainer merged a branch applying the
softmax, and the follow-up pull request #16 was titled "Fixed dice loss to use
probabilities, not logits"). Here a small U-Net (benchmarks/real_bugs/_seg154.py)
segments 16x16 noisy scenes into background, filled rectangles and rectangle outlines,
trained with a mean-over-classes soft Dice loss and Adam (lr 5e-3). Fix: softmax over the class
channel before the Dice sums.

Measured (300 steps, batch 16, 256 held-out scenes; mean IoU of the two object classes of
the argmax maps): seed 0, 0.007 for the bug against 0.809 for the fixed twin; seeds shifted
by 1000, 0.000 against 0.724 (the bug run's argmax maps are background everywhere).
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._seg154 import UNet, batches, mean_iou, scenes

TITLE = "Dice loss operating on logits rather than predictions"
LINK = "https://github.com/jakeret/tf_unet/issues/15"
EXPECTED = ("DICE_ON_LOGITS",)
STEPS = 300
CLASSES = 3
SMOOTH = 1.0    # [convention] the usual +1 of a soft Dice


def dice_loss(scores, labels):
    """1 - soft Dice averaged over the classes, sums over each image's pixels."""
    target = F.one_hot(labels, CLASSES).permute(0, 3, 1, 2).float()
    overlap = (scores * target).sum((2, 3))
    areas = scores.sum((2, 3)) + target.sum((2, 3))
    return (1 - (2 * overlap + SMOOTH) / (areas + SMOOTH)).mean()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    images, labels = scenes(1024, seed=0)
    held_images, held_labels = scenes(256, seed=1)
    model = UNet(out=CLASSES)
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(images, labels, steps):
            logits = model(xb)
            # BUG (fixed=False): the Dice reads the logits as if they were probabilities
            scores = logits.softmax(1) if fixed else logits
            loss = dice_loss(scores, yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        mon.held_out_mean_iou = mean_iou(model(held_images).argmax(1), held_labels, CLASSES)
    return mon
