"""A backbone pretrained on BGR images (OpenCV's and Caffe's channel order) fed RGB images
when it is reused: the first convolution's filters meet each colour in the other's channel,
so the frozen features the new head is fitted to are not the ones it learned. The probe's
loss ends near 0.52 (last 20 of 200 steps), against 0.26 with the channels in the
pretrained order.

Reported: "RGB <-> BGR" - https://github.com/clcarwin/SFD_pytorch/issues/6 ("I fed RGB to
the network and got worse results"; the author: "The model is converted from caffe, BGR is
used"). Here colour digits (ink in the red channel, a faint copy in green, a bluish
background), a small CNN pretrained on the digits 0-4 in BGR order, frozen, and a linear
probe for all ten digits trained on RGB images.
Fix: feed the channels in the order the backbone was trained on (``images.flip(1)``, or
``cv2.cvtColor`` at loading).

Why watch misses it: the RGB images are ordinary images in [0, 1], as the BGR ones are, and
the monitor sees only the fine-tuning run, never the pretraining data: nothing it records
says in which order the backbone's first convolution learned its colours. The frozen
features still carry enough for the probe's loss to fall, only to a worse level than the
fixed twin's, which the monitor does not see either.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "RGB <-> BGR"
LINK = "https://github.com/clcarwin/SFD_pytorch/issues/6"
EXPECTED = ("INPUT_CHANNELS_REORDERED",)
STEPS = 200
PRETRAIN_STEPS = 300


def colour_digits():
    """The digits as RGB images (N, 3, 8, 8) in [0, 1]: red ink, a fainter green copy of the
    ink, and a blue background that fades where the ink is."""
    x, y = classification(images=True)
    rgb = torch.cat([x, 0.4 * x, 0.6 * (1 - x)], dim=1)
    return rgb, y


def backbone():
    return nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten())


def pretrained(bgr, y):
    """The backbone trained (with its own head) on BGR images of the digits 0-4."""
    torch.manual_seed(1)
    body = backbone()
    model = nn.Sequential(body, nn.Linear(128, 5))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    keep = y < 5
    for xb, yb in batches(bgr[keep], y[keep], PRETRAIN_STEPS, seed=1):
        optimizer.zero_grad()
        nn.functional.cross_entropy(model(xb), yb).backward()
        optimizer.step()
    return body


def build(fixed=False, steps=STEPS):
    rgb, y = colour_digits()
    body = pretrained(rgb.flip(1), y)          # pretrained in BGR order
    for p in body.parameters():
        p.requires_grad_(False)
    torch.manual_seed(0)
    model = nn.Sequential(body, nn.Linear(128, 10))
    optimizer = torch.optim.Adam(model[1].parameters(), lr=3e-3)
    images = rgb.flip(1) if fixed else rgb     # BUG: RGB images for a BGR backbone
    return model, optimizer, nn.CrossEntropyLoss(), batches(images, y, steps)


def run(fixed=False, steps=STEPS, **watch):
    return train_watched(*build(fixed, steps), **watch)
