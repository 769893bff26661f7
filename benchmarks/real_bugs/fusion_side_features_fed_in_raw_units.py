"""The non-text modality's feature columns are fed to the fusion network in their raw
units (offsets in the hundreds, scales from 0.1 to 100) next to a modality in [0, 1]:
the large columns swamp the first layer and the fused model learns less than it could.

Reported: "baseline using only visual or acoustic features." -
https://github.com/WasifurRahman/BERT_multimodal_transformer/issues/13 (a fusion
network on the visual features alone gave "random guessing"; the maintainer points first
at feature engineering: the visual/acoustic features "contain highly correlated features
and zero columns", use the repository's preprocessing). Here noisy 8x8 digits fused with
six metadata columns (the side modality) in raw units; a two-branch network with a linear
head on the concatenated features. Fix: standardise the side modality's columns with the
training rows' mean and std.

Measured harm (held-out accuracy, 600 rows): 0.70 vs 0.83; seeds + 1000: 0.64 vs 0.78.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._fusion import FusionNet, accuracy, fusion_data, standardiser

TITLE = "baseline using only visual or acoustic features."
LINK = "https://github.com/WasifurRahman/BERT_multimodal_transformer/issues/13"
EXPECTED = ("UNNORMALIZED_INPUTS", "INPUT_CHANNELS_ON_DIFFERENT_SCALES")
STEPS = 300


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (img, meta, y), (timg, tmeta, ty) = fusion_data()
    if fixed:
        mean, std = standardiser(meta)
        meta, tmeta = (meta - mean) / std, (tmeta - mean) / std
    # BUG when not fixed: the side modality stays in its raw units
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
