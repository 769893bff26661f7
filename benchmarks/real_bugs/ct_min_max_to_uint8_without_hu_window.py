"""CT slices are scaled to 0-255 by each slice's own minimum and maximum and stored as
uint8, with no Hounsfield-unit window first: air (-1000 HU) and bone (up to ~1800 HU) set
the range, so one grey level spans 6-11 HU and a lesion 20 HU above soft tissue is two or
three grey levels, hardly more than the rounding and the noise (and the tissue's own level
moves with each slice's brightest bone). The segmenter trains without complaint and finds
the lesions poorly.

Reported: "window adjustment was missing in training and inference for abdominal CT
data?" - https://github.com/bowang-lab/MedSAM/issues/101 (CT results were poor; the data
had been normalised to [0, 255] without a window clip in advance; the maintainer: "great
catch. we will add the CT window adjustment"). Here 16x16 CT slices (benchmarks/real_bugs/_med.py:
a 30-50 HU body, a 600-1800 HU bone rim, a lesion 20 HU above the tissue, 5 HU noise), a
small fully convolutional segmenter with a per-pixel BCE loss. Fix: clip to a soft-tissue
window (W 400, L 40) before scaling to 0-255.

Measured (300 Adam steps, batch 32; Dice of the lesion masks on 300 held-out slices):
seed 0, bug 0.00 (it never marks a lesion) against fixed 0.61; seeds + 1000: 0.00 against
0.63.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._med import TinyFCN, ct_slices, dice, index_batches

TITLE = "window adjustment was missing in training and inference for abdominal CT data?"
LINK = "https://github.com/bowang-lab/MedSAM/issues/101"
EXPECTED = ("INPUTS_ROUNDED_BY_LOW_PRECISION", "NORMALISATION_ERASES_CLASS_SIGNAL")
STEPS = 300
WINDOW = (40 - 200, 40 + 200)       # soft tissue: level 40 HU, width 400 HU


def to_uint8(hu, fixed):
    """(N, 16, 16) HU -> (N, 1, 16, 16) uint8, the way the images are stored for training."""
    if fixed:
        hu = hu.clamp(*WINDOW)
    lo = hu.amin(dim=(1, 2), keepdim=True)
    hi = hu.amax(dim=(1, 2), keepdim=True)
    # BUG when not fixed: the range is air to bone, ~2800 HU over 255 levels
    return ((hu - lo) / (hi - lo) * 255).round().to(torch.uint8)[:, None]


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    hu, mask = ct_slices(600, seed=0)
    test_hu, test_mask = ct_slices(300, seed=1)
    x = to_uint8(hu, fixed).float() / 255
    test_x = to_uint8(test_hu, fixed).float() / 255
    model = TinyFCN()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.BCEWithLogitsLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for rows in index_batches(len(x), steps):
            optimizer.zero_grad()
            loss = loss_fn(model(x[rows]), mask[rows])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_dice = dice(model, test_x, test_mask)
    return mon
