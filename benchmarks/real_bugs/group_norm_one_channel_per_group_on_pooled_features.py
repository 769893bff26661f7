"""A ``GroupNorm`` with as many groups as channels, put after global average pooling: on a
(batch, channels, 1, 1) map every group holds ONE value, its mean is that value and its
variance 0, so the layer outputs 0 (then its bias) whatever the image. The head behind it
sees a constant, no gradient reaches the layers before it, and the classifier learns the
class prior only.

Reported: "InstanceNorm, GroupNorm doesn't crash with # of elements == 1" -
https://github.com/pytorch/pytorch/issues/19250 ("if you have a batch with shape
[64, 256, 1, 1], instance norm and group norm (with num_groups=256) will compute the
statistics over last two dimensions, which is just one element ... the activations of the
network will become all zeros, which would effectively prevent any learning"; the same
zeros were reported again for GroupNorm(27, 27) on a (7, 27) batch in
https://github.com/pytorch/pytorch/issues/94288). Here a small conv net on the 8x8 digits
normalised with GroupNorm throughout, whose 1x1 projection after the pooling gets
``GroupNorm(64, 64)``. Fix: groups that hold several values (``GroupNorm(8, 64)``: 8
channels per group), as the convolutions' norms already do.

Measured (400 steps, 297 held-out digits): the bug's test accuracy 0.10 (one class), the
fixed twin's 0.89.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "InstanceNorm, GroupNorm doesn't crash with # of elements == 1"
LINK = "https://github.com/pytorch/pytorch/issues/19250"
EXPECTED = ("NORM_OVER_SINGLE_VALUE",)
STEPS = 400
HELD_OUT = 297


def build(fixed):
    head_groups = 8 if fixed else 64            # BUG: one channel per group on a 1x1 map
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.GroupNorm(4, 16), nn.ReLU(),
        nn.Conv2d(16, 32, 3, padding=1, stride=2), nn.GroupNorm(8, 32), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1),
        nn.Conv2d(32, 64, 1), nn.GroupNorm(head_groups, 64), nn.ReLU(),
        nn.Flatten(), nn.Linear(64, 10))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification(images=True)
    model = build(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    mon = train_watched(model, optimizer, nn.CrossEntropyLoss(),
                        batches(x[:-HELD_OUT], y[:-HELD_OUT], steps), **watch)
    model.eval()
    with torch.no_grad():
        predicted = model(x[-HELD_OUT:]).argmax(1)
    mon.test_accuracy = round(float((predicted == y[-HELD_OUT:]).float().mean()), 3)
    return mon
