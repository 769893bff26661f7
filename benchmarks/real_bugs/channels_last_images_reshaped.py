"""Colour images stored channels-last, (batch, height, width, 3), handed to a conv net
with ``.reshape(batch, 3, height, width)`` instead of ``.permute(0, 3, 1, 2)``: the reshape
keeps the memory order, so each "channel" the convolutions see is a strip of the image
with red, green and blue values interleaved along its rows - the network trains on a
scrambled picture.

Reported: "a mirror question about inference code" -
https://github.com/Selen-Suyue/DensePolicy2D/issues/3 ("we usually transform a b x h x w x c
to b x c x h x w by using img.permute(0,3,1,2).contiguous() - while the results of permute
and reshape are different ... if reshape is used, the operations will apply to a pretend
image"; the author: "Got it! I will update my code."). Here the 8x8 digits painted in a
random colour per image, stored channels-last. Fix: `.permute(0, 3, 1, 2)`.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "a mirror question about inference code"
LINK = "https://github.com/Selen-Suyue/DensePolicy2D/issues/3"
EXPECTED = ("INPUT_LAYOUT_SCRAMBLED",)   # the dependency probe's data-only check (layout.py)
STEPS = 150


def coloured_channels_last(seed=0):
    """The digits painted in a random colour each, standardised: (N, 8, 8, 3) and labels."""
    x, y = classification(images=True)             # (N, 1, 8, 8) in [0, 1]
    g = torch.Generator().manual_seed(seed)
    colour = 0.3 + 0.7 * torch.rand(len(x), 1, 1, 3, generator=g)
    images = x.squeeze(1).unsqueeze(-1) * colour    # (N, 8, 8, 3)
    return (images - images.mean()) / images.std(), y


def convnet():
    return nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(64, 10))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = coloured_channels_last()
    model = convnet()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            if fixed:
                xb = xb.permute(0, 3, 1, 2)
            else:
                xb = xb.reshape(len(xb), 3, 8, 8)   # BUG: not a permute
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
