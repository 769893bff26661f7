"""A gated PixelCNN (a vertical stack that sees the rows above, a horizontal stack that sees
the current row's pixels to the left, the vertical features fed into the horizontal stack
through a 1x1 convolution) whose layers give EVERY convolution the layer's mask, the 1x1
ones included. On a 1x1 kernel the first layer's type-A mask (centre excluded) is all zero:
the first layer's vertical-to-horizontal link and its horizontal output convolution are
zero forever, so the horizontal stack starts from a constant and later layers only ever
add what the vertical stack knew. No pixel learns from the pixels to its left on its own
row; the likelihood is worse, and nothing errors.

Reported: "Error in Mask Implementation" -
https://github.com/anantzoid/Conditional-PixelCNN-decoder/issues/9 (the reporter traced the
receptive field through the stacks, as in kkleidal's note on conv masking, and found "no
information propagated along the first horizontal line"; the cause was the mask applied to
the 1x1 convolutions; fixed by not masking them, merged as "Unmasking the horizontal
stack", #10). Here a four-layer gated PixelCNN (16 channels) models the binarised 8x8
digits pixel by pixel (benchmarks/real_bugs/_autoregressive.py).
Fix: the 1x1 convolutions unmasked.

Measured (400 Adam steps, batch 64, 500 held-out digits, negative log-likelihood in nats
per image, lower is better): seed 0 - bug 19.9, fixed 18.8; seeds shifted by 1000 - bug
20.1, fixed 18.8. The harm is real but modest: the rows above already say much of what
the pixels to the left would (the output at (4, 4) reads rows 0-3 with the bug, and row
4's first four pixels too when fixed).
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._autoregressive import (MaskedConv2d, binarised_digits, pixel_nll,
                                                  stack_mask)
from benchmarks.real_bugs._common import batches

TITLE = "Error in Mask Implementation"
LINK = "https://github.com/anantzoid/Conditional-PixelCNN-decoder/issues/9"
EXPECTED = ("NO_GRADIENT",)
STEPS = 400


def gate(x):
    a, b = x.chunk(2, dim=1)
    return torch.tanh(a) * torch.sigmoid(b)


class GatedLayer(nn.Module):
    def __init__(self, c_in, channels, first, fixed):
        super().__init__()
        self.first = first
        self.v_conv = MaskedConv2d(c_in, 2 * channels, (3, 3), stack_mask("vertical", first))
        self.h_conv = MaskedConv2d(c_in, 2 * channels, (3, 3),
                                   stack_mask("horizontal", first))
        # BUG unless fixed: the 1x1 convolutions get the layer's mask (zero in the first)
        one = torch.ones(1, 1) if fixed else stack_mask("one_by_one", first)
        self.v_to_h = MaskedConv2d(2 * channels, 2 * channels, (1, 1), one)
        self.h_out = MaskedConv2d(channels, channels, (1, 1), one)

    def forward(self, v, h):
        v_pre = self.v_conv(v)
        h_new = self.h_out(gate(self.h_conv(h) + self.v_to_h(v_pre)))
        return gate(v_pre), h_new if self.first else h + h_new


class GatedPixelCNN(nn.Module):
    def __init__(self, fixed, channels=16, layers=4):
        super().__init__()
        self.layers = nn.ModuleList(GatedLayer(1 if i == 0 else channels, channels, i == 0,
                                               fixed) for i in range(layers))
        self.head = nn.Sequential(nn.ReLU(), nn.Conv2d(channels, channels, 1), nn.ReLU(),
                                  nn.Conv2d(channels, 1, 1))

    def forward(self, x):
        v = h = x
        for layer in self.layers:
            v, h = layer(v, h)
        return self.head(h)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, held_out = binarised_digits(seed=0)
    model = GatedPixelCNN(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    loss_fn = nn.BCEWithLogitsLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for images, _ in batches(train, train, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(images), images)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_nll = pixel_nll(model, held_out)
    return mon
