"""A keypoint regressor whose coordinate targets, scaled to [-1, 1] the usual way, are
turned into a tensor with ``torch.from_numpy(y).type(torch.LongTensor)`` - the conversion
a first classifier uses for its labels. Casting to an integer type truncates towards zero,
and every coordinate in (-1, 1) becomes exactly 0: all targets of all samples are the
same value. The loss (against those zeros) falls quickly to almost nothing; the network
learns to put every keypoint at the centre of the image.

Reported: "Forcing type will return zeroed tensor using torch.from_numpy." -
https://github.com/pytorch/pytorch/issues/3346 (``y_train = torch.from_numpy(y_train)
.type(torch.LongTensor)`` on a (1929, 30) array of coordinates such as 0.3757 and -0.1875:
"I get a tensor with all elements as 0"). Here 5 "keypoints" of each 8x8 digit - the ink's
centre of mass and the top-left and bottom-right corners of its bounding box, 10
coordinates mapped from pixels to [-1, 1] - predicted from the pixels by a 64-64-10 MLP with
MSE (the long targets taken ``.float()`` for the loss), Adam lr 1e-3, batches of 64,
300 steps; 297 digits held out.

Fix: keep the targets float (``torch.from_numpy(y).float()``).

Measured (held-out MSE against the true coordinates): 0.162 with the bug, 0.0084 fixed;
seeds + 1000: 0.157 vs 0.0088.
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "Forcing type will return zeroed tensor using torch.from_numpy."
LINK = "https://github.com/pytorch/pytorch/issues/3346"
EXPECTED = ("TARGETS_ALL_ONE_VALUE",)
STEPS = 300
HELD_OUT = 297


def keypoints(x):
    """(N, 10) float64 coordinates in [-1, 1]: the ink's centre of mass (row, col), and the
    bounding box's top-left and bottom-right corners (row, col each), from 8x8 images."""
    images = x.numpy().reshape(-1, 8, 8).astype(np.float64)
    grid = np.arange(8, dtype=np.float64)
    mass = images.sum((1, 2))
    rows = (images.sum(2) * grid).sum(1) / mass
    cols = (images.sum(1) * grid).sum(1) / mass
    ink_rows, ink_cols = images.max(2) > 0.25, images.max(1) > 0.25
    top, bottom = ink_rows.argmax(1), 7 - ink_rows[:, ::-1].argmax(1)
    left, right = ink_cols.argmax(1), 7 - ink_cols[:, ::-1].argmax(1)
    points = np.stack([rows, cols, top, left, bottom, right, top, right, bottom, left], 1)
    return (points - 3.5) / 3.5                         # pixels 0..7 -> [-1, 1]


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, _ = classification()
    y_train = keypoints(x)                              # float64 numpy, in [-1, 1]
    if fixed:
        y = torch.from_numpy(y_train).float()
    else:
        y = torch.from_numpy(y_train).type(torch.LongTensor)   # BUG: truncates all to 0
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.MSELoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x[:-HELD_OUT], y[:-HELD_OUT], steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb.float())
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        truth = torch.from_numpy(y_train[-HELD_OUT:]).float()
        mon.held_out_mse = round(float(((model(x[-HELD_OUT:]) - truth) ** 2).mean()), 4)
    return mon
