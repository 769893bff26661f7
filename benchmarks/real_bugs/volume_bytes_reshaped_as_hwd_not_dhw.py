"""3-D volumes stored slice by slice, (depth, height, width), are read back with a reshape to
(height, width, depth): a reshape reinterprets the flat buffer rather than moving axes, so
the voxels of each volume are scattered - neighbours along the rows jump by several voxels,
slices interleave - and the 3-D CNN's local kernels see no contiguous structure. The
network trains, its loss falls a little, and it classifies the volumes much worse.

Reported: "The input data shape" - https://github.com/melmikaty/3D_CNN/issues/1 (the reader
reshapes each record to [height, width, depth, channels] while conv3d takes [depth, height,
width]; the reporter's CT model "has bad result" and asked whether this conflicts; the author
answered that the order was not important for his volumes). Here (z, y, x) = 8 x 12 x 12
volumes holding a bright rod along one of the three axes (the class; benchmarks/real_bugs/
_med.py), flattened as stored and read back with .view(12, 12, 8) (bug) or .view(8, 12, 12)
(fix), a small 3-D CNN with global max pooling.

Measured (200 Adam steps, batch 32; accuracy on 300 held-out volumes, chance 0.33): seed 0,
bug 0.47 against fixed 0.88; seeds + 1000: 0.45 against 0.91.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._med import Tiny3DCNN, accuracy, index_batches, rod_volumes

TITLE = "The input data shape"
LINK = "https://github.com/melmikaty/3D_CNN/issues/1"
EXPECTED = ("INPUT_LAYOUT_SCRAMBLED",)
STEPS = 200
DEPTH, SIZE = 8, 12


def read_back(records, fixed):
    """Flat records (N, D*H*W) as stored -> (N, 1, ...) volumes for Conv3d."""
    if fixed:
        return records.view(-1, 1, DEPTH, SIZE, SIZE)
    return records.view(-1, 1, SIZE, SIZE, DEPTH)     # BUG: a reshape, not a transpose


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    volumes, y = rod_volumes(600, DEPTH, SIZE, seed=0)
    test_volumes, test_y = rod_volumes(300, DEPTH, SIZE, seed=1)
    x = read_back(volumes.flatten(1), fixed)
    test_x = read_back(test_volumes.flatten(1), fixed)
    model = Tiny3DCNN()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for rows in index_batches(len(x), steps):
            optimizer.zero_grad()
            loss = loss_fn(model(x[rows]), y[rows])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, test_x, test_y)
    return mon
