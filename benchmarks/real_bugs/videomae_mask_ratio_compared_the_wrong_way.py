"""Masked-autoencoder pretraining whose boolean mask is drawn as ``rand > mask_ratio``: with
a masking ratio of 0.85 that HIDES only about 15% of the patches and shows the encoder the
other 85%. Nothing breaks - the loss is still read on the masked patches and falls - but
the pretext task has become filling one or two small holes from nearly the whole image,
which a decoder does from the neighbouring pixels, and the encoder learns much less about
the digit as a whole: its features probe worse.

Reported: "Question about the bool_masked_pos for pre-training" -
https://github.com/ZiyangZhang0511/Echo-Vison-FM/issues/2 ("Suppose mask_ratio is 0.85.
This will make 85% as 0, which should stands for unmasked patches ... However, it should
be 85% masked patches"). Here the tiny MAE of ``_mae343`` on the 8x8 digits (16 patches of
2x2), one mask drawn per batch and shared by its images (so every image hides as many
patches, as VideoMAE's reshape of the masked patches needs), drawn again until it hides at
least one patch and keeps at least one; AdamW, 200 steps of 64 digits, the loss on the
masked patches.

Fix: ``bool_masked_pos = rand < mask_ratio`` (85% of the patches masked).

Measured (held-out accuracy of a linear probe on the frozen encoder's mean-pooled tokens of
the whole image, 397 digits): 0.63 with the bug, 0.74 fixed; seeds + 1000: 0.60 vs 0.72.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._mae343 import PATCH, TOKENS, TinyMAE, digits, linear_probe, patches

TITLE = "Question about the bool_masked_pos for pre-training"
LINK = "https://github.com/ZiyangZhang0511/Echo-Vison-FM/issues/2"
EXPECTED = ("LOSS_READS_UNMASKED_TOKENS",)
STEPS = 200
MASK_RATIO = 0.85


def batch_mask(fixed):
    """(TOKENS,) bool, True = masked, for one batch."""
    while True:
        random_tensor = torch.rand(TOKENS)
        if fixed:
            masked = random_tensor < MASK_RATIO
        else:
            masked = random_tensor > MASK_RATIO     # BUG: masks 15%, shows 85%
        if 0 < int(masked.sum()) < TOKENS:
            return masked


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, xh, yh = digits()
    model = TinyMAE()
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.05)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(x), steps, batch_size=64, seed=0):
            images = x[index]
            masked = batch_mask(fixed)
            order = torch.cat([torch.nonzero(~masked)[:, 0], torch.nonzero(masked)[:, 0]])
            ids_keep = order[:int((~masked).sum())].expand(len(images), -1)
            ids_restore = order.argsort().expand(len(images), -1)
            error = ((model(images, ids_keep, ids_restore)
                      - patches(images, PATCH)) ** 2).mean(-1)
            loss = error[:, masked].mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_probe_accuracy = linear_probe(model, x, y, xh, yh)
    return mon
