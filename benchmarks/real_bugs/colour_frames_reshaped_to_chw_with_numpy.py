"""Colour frames stored (height, width, 3) turned into the (3, height, width) a conv net
wants with ``np.reshape(frame, [3, H, W])`` instead of moving the colour axis: a reshape
keeps the memory order, so each "channel" the first convolution reads is a third of the
picture with red, green and blue values interleaved along its rows. Training runs and the
loss falls, but the network learns from a scrambled picture.

Reported: "changed reshape to moveaxis" - https://github.com/ikostrikov/pytorch-a3c/pull/47
("np.reshape(frame, [C, H, W]) does not work correctly for full color images. The change
here gives exactly the same behavior as the old code when used on greyscale images, and
also allows for training on full color images"; merged). Here the frames are the 8x8
digits painted in a random colour and a random brightness each, kept as NumPy
(N, 8, 8, 3) arrays the way an environment returns them, classified by a small conv net.
Fix: ``np.moveaxis(frame, -1, 0)``.

Harm (held-out accuracy, bug vs fixed): 0.85 vs 0.91; seeds + 1000: 0.83 vs 0.90.
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._shape_slips import accuracy, minibatches, record, split, \
    small_convnet

TITLE = "changed reshape to moveaxis"
LINK = "https://github.com/ikostrikov/pytorch-a3c/pull/47"
EXPECTED = ("INPUT_LAYOUT_SCRAMBLED", "RESHAPE_USED_AS_TRANSPOSE")
STEPS = 100


def colour_frames(x):
    """(N, 1, 8, 8) digits -> NumPy (N, 8, 8, 3) frames, each painted in a random colour."""
    colour = 0.2 + 0.8 * torch.rand(len(x), 1, 1, 3)
    return (x.squeeze(1).unsqueeze(-1) * colour).numpy()


def to_chw(frames, fixed):
    n, h, w, c = frames.shape
    if fixed:
        return torch.from_numpy(np.ascontiguousarray(np.moveaxis(frames, -1, 1)))
    return torch.from_numpy(np.reshape(frames, [n, c, h, w]))      # BUG: not a moveaxis


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x_train, y_train, x_test, y_test = split(images=True)
    f_train, f_test = colour_frames(x_train), colour_frames(x_test)
    model = small_convnet(channels=3)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for index in minibatches(len(f_train), steps):
            xb = to_chw(f_train[index.numpy()], fixed)
            optimizer.zero_grad()
            loss = loss_fn(model(xb), y_train[index])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    record("held-out accuracy", accuracy(model, to_chw(f_test, fixed), y_test))
    return mon
