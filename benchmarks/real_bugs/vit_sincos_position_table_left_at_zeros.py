"""A hand-written vision transformer meant to use the fixed 2-D sine-cosine position table
(MAE/DiT style): the table is declared as a frozen Parameter of zeros, ``nn.Parameter(
torch.zeros(1, patches + 1, dim), requires_grad=False)``, and the step that fills it with
the sines and cosines is never run. Adding zeros is adding nothing, and with
``requires_grad=False`` nothing ever changes it: every patch token is its pixels only, the
attention is blind to where a patch sits, and the classifier sees the image as a bag of
2x2 patches. Training runs normally - the loss falls, just to a worse place.

Reported: "Latte training bug fix: temp_embed initialization" -
https://github.com/mindspore-lab/mindone/pull/409 (the Latte video diffusion transformer
built its position embedding as a frozen zero Parameter "to be filled with the fixed
sin-cos embedding", and the training script never filled it - "failed to initialize
temporal position embedding"; the fix writes the 1-D sin-cos table into the Parameter at
initialisation). Here the spatial table of a 2-layer ViT (width 32, 4 heads, pre-norm) on
the 8x8 digits cut into 16 patches of 2x2 pixels, read at its class token; AdamW 3e-3,
batches of 64, 384 digits held out. Fix: fill the frozen table with the 2-D sin-cos
embedding (the class token's row stays zero, as in MAE).

Measured (held-out accuracy, 300 steps): seed 0: 0.56 with the bug against 0.93 for the
fixed twin; seeds shifted by 1000: 0.68 against 0.85.
"""
import torch
from torch import nn

from benchmarks.real_bugs._vit174 import ViT, accuracy, digits, sincos_2d, train

TITLE = "Latte training bug fix: temp_embed initialization"
LINK = "https://github.com/mindspore-lab/mindone/pull/409"
EXPECTED = ("POSITIONS_IGNORED", "FROZEN_PARAMETERS")
STEPS = 300
DIM, SIDE = 32, 4


def run(fixed=False, steps=STEPS, **watch):
    seed = 0
    torch.manual_seed(seed)
    x, y, x_test, y_test = digits(seed)
    # "will use the fixed sin-cos embedding": a frozen table
    pos = nn.Parameter(torch.zeros(1, SIDE * SIDE + 1, DIM), requires_grad=False)
    if fixed:                    # the fix: the table is filled once, at initialisation
        with torch.no_grad():
            pos[0, 1:] = sincos_2d(DIM, SIDE)
    # BUG (fixed=False): the filling step is never run, so the table stays all zeros
    model = ViT(pos, dim=DIM)
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad],
                                  lr=3e-3, weight_decay=0.05)
    mon = train(model, optimizer, x, y, steps, seed, watch)
    mon.held_out_accuracy = accuracy(model, x_test, y_test)
    return mon
