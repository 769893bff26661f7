"""A masked autoencoder whose "masked patches only" reconstruction loss is weighted with the
wrong side of the mask: the mask holds 1 for the patches the encoder SEES (kept) and 0 for
the ones it removed, and the loss multiplies the per-patch error by that mask, so only the
visible patches are graded. The encoder has their pixels in front of it; the decoder learns
to copy them through, the loss drops to almost zero within a few dozen steps, and the
hidden patches - the whole task - are never asked for: their reconstructions stay near a
blur of the mean image.

Reported: "Fixing _rec_loss bug when rec_loss_masked_only is True" -
https://github.com/Sllambias/asparagus/pull/12 ("the masked-only loss path zeroed out the
masked voxels (~mask), leaving the visible/kept voxels to define the loss"). Here the tiny
MAE of ``_mae343`` (16 patches of 2x2 pixels of the 8x8 digits, 4 kept, 12 masked, the
order restored with the inverse permutation), AdamW, 200 steps of 64 images, the mask held
as True on the kept patches like the report's.

Fix: grade the removed patches - ``loss[~keep]`` - not the kept ones.

Measured (held-out squared error on the masked patches, 397 digits, fixed masks): 0.187
with the bug, 0.074 fixed; seeds + 1000: 0.177 vs 0.074.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._mae343 import (PATCH, TinyMAE, digits, masked_patch_mse, patches,
                                          random_masking)

TITLE = "Fixing _rec_loss bug when rec_loss_masked_only is True"
LINK = "https://github.com/Sllambias/asparagus/pull/12"
EXPECTED = ("LOSS_READS_UNMASKED_TOKENS",)
STEPS = 200


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, _, xh, _ = digits()
    model = TinyMAE()
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.05)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(x), steps, batch_size=64, seed=0):
            images = x[index]
            ids_keep, removed, ids_restore = random_masking(len(images))
            keep = removed == 0                 # True on the patches the encoder sees
            error = ((model(images, ids_keep, ids_restore)
                      - patches(images, PATCH)) ** 2).mean(-1)
            if fixed:
                loss = error[~keep].mean()      # the removed patches
            else:
                loss = error[keep].mean()       # BUG: the visible patches
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_masked_mse = masked_patch_mse(model, xh)
    return mon
