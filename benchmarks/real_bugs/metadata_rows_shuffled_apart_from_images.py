"""The metadata table is shuffled (and its index reset) on its own when the data are
split, while the images and labels keep their order: every image is fused with another
sample's metadata, so the tabular branch learns noise and the fused model is no better
than the image alone.

Reported: "Fix shuffle misalignment" - https://github.com/IBM/AutoXAI4Omics/pull/58 ("an
index misalignment bug where the target column ... could become out of sync with
condition_binary (original target) in the metadata after shuffling/splitting"; fixed by
resetting the indices after the split so targets stay aligned with features and
metadata). Here noisy 8x8 digits fused with six standardised metadata columns; the
training metadata rows are permuted apart from the images and labels, the held-out rows
stay aligned. Fix: permute the metadata with the same order as the images and labels.

Measured harm (held-out accuracy, 600 rows): 0.56 vs 0.83; seeds + 1000: 0.52 vs 0.77.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._fusion import FusionNet, accuracy, fusion_data, standardiser

TITLE = "Fix shuffle misalignment"
LINK = "https://github.com/IBM/AutoXAI4Omics/pull/58"
EXPECTED = ("LABELS_MISALIGNED",)
STEPS = 300


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (img, meta, y), (timg, tmeta, ty) = fusion_data()
    mean, std = standardiser(meta)
    meta, tmeta = (meta - mean) / std, (tmeta - mean) / std
    order = torch.randperm(len(y))                     # the split's shuffle
    img, y = img[order], y[order]
    if fixed:
        meta = meta[order]
    else:                                              # BUG: the table reshuffled alone
        meta = meta[torch.randperm(len(y))]
    model = FusionNet()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for idx in index_batches(len(y), steps, 64):
            loss = loss_fn(model(img[idx], meta[idx]), y[idx])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.heldout = accuracy(model, timg, tmeta, ty)
    return mon
