"""Deep Supervised Hashing (DSH) with its quantisation penalty written through sign():
the penalty that should pull every real-valued code unit towards +1 or -1,
alpha * mean(| |u| - 1 |), was typed as alpha * mean(| 1 - sign(u) |). sign() has a zero
gradient everywhere, so the term adds a number to the loss and nothing to the update: the
hash layer is trained by the contrastive term alone, its outputs drift to any scale, many
units of a class sit near zero, and binarising them with sign() at retrieval time flips
bits the contrastive loss never had to keep stable. The loss prints and falls; Hamming
retrieval is worse.

Reported: "DSH loss" - https://github.com/swuxyj/DeepHash-pytorch/issues/16 ("Should we
replace `sign()` with `abs()`?"; the maintainer: the paper's |.| is the element-wise
absolute value, "I made a mistake", fixed to abs). Here the report's DSH loss on the 8x8
digits: a 64 -> 128 -> 16-bit MLP hash layer (linear output, as DSH), pairwise
labels built from the classes of every pair in the batch (the DSH paper's in-batch pairs;
the reporting repository also compares with a memory bank of past codes), margin 2 * bits,
alpha 0.1 (the report's), Adam 3e-3, 400 batches of 64; codes binarised with sign and
500 held-out digits ranked by Hamming distance against the 1297 training digits.
Fix: alpha * (1 - u.abs()).abs().mean().

Measured (held-out mAP under Hamming ranking, 500 queries against the training digits):
0.817 with the bug, 0.886 fixed; seeds + 1000: 0.845 vs 0.907.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._hash346 import HashMLP, retrieval_map, split

TITLE = "DSH loss"
LINK = "https://github.com/swuxyj/DeepHash-pytorch/issues/16"
EXPECTED = ("LOSS_TERM_WITHOUT_GRADIENT",)
STEPS = 400
BITS = 16
ALPHA = 0.1


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, xq, yq = split()
    model = HashMLP(BITS)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    margin = 2 * BITS
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(x), steps, batch_size=64):
            u, yb = model(x[index]), y[index]
            dist = (u[:, None, :] - u[None, :, :]).pow(2).sum(2)     # every pair in the batch
            dissimilar = (yb[:, None] != yb[None, :]).float()      # labels from the classes
            pair = (1 - dissimilar) / 2 * dist + dissimilar / 2 * (margin - dist).clamp(min=0)
            if fixed:
                quantise = ALPHA * (1 - u.abs()).abs().mean()
            else:                                       # BUG: sign() has no gradient
                quantise = ALPHA * (1 - u.sign()).abs().mean()
            loss = pair.mean() + quantise
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_map = retrieval_map(model, x, y, xq, yq)
    return mon
