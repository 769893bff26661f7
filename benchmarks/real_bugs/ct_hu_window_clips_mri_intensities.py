"""An MRI tumour segmenter is trained with a CT preprocessing step: the intensities are
scaled from a Hounsfield window (a_min=-175, a_max=250) to [0, 1] with clipping. MRI has no
fixed intensity scale - brain tissue sits at several hundred scanner units - so nearly every
brain voxel, tumour or not, is clipped to 1 and the tumour's contrast is gone. Training runs,
the loss falls to what the brain outline allows, and the tumours are not found.

Reported: "Is CT-Style Normalization Appropriate for MRI in BRATS Test Code?" -
https://github.com/EmmanuelleB985/UK_BOB/issues/4 (the BRATS pipeline's normalisation uses
a_min=-175.0, a_max=250.0, parameters typical of CT; the reporter saw poor segmentation on
glioma MRI and asked whether z-score normalisation, usual for MRI, was meant). Here 16x16
MRI slices (benchmarks/real_bugs/_med.py: tissue at a per-scan gain of 300-900 units, a
tumour 1.35x brighter), a small fully convolutional segmenter, per-pixel BCE. Fix: z-score
each scan over its brain voxels (MRI-style normalisation).

Measured (300 Adam steps, batch 32; Dice of the tumour masks on 300 held-out slices):
seed 0, bug 0.00 (no tumour pixel marked) against fixed 0.98; seeds + 1000: 0.00 against 0.98.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._med import TinyFCN, dice, index_batches, mri_slices

TITLE = "Is CT-Style Normalization Appropriate for MRI in BRATS Test Code?"
LINK = "https://github.com/EmmanuelleB985/UK_BOB/issues/4"
EXPECTED = ("NORMALISATION_ERASES_CLASS_SIGNAL",)
STEPS = 300
A_MIN, A_MAX = -175.0, 250.0        # a CT soft-tissue window, in HU


def normalise(signal, fixed):
    """(N, 16, 16) scanner units -> (N, 1, 16, 16) network input."""
    if fixed:
        brain = signal > 0
        count = brain.sum(dim=(1, 2), keepdim=True)
        mean = (signal * brain).sum(dim=(1, 2), keepdim=True) / count
        var = (((signal - mean) * brain) ** 2).sum(dim=(1, 2), keepdim=True) / count
        return torch.where(brain, (signal - mean) / var.sqrt(), torch.zeros(()))[:, None]
    # BUG: ScaleIntensityRange(a_min=-175, a_max=250, b_min=0, b_max=1, clip=True) on MRI
    return ((signal - A_MIN) / (A_MAX - A_MIN)).clamp(0, 1)[:, None]


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    signal, mask = mri_slices(600, seed=0)
    test_signal, test_mask = mri_slices(300, seed=1)
    x, test_x = normalise(signal, fixed), normalise(test_signal, fixed)
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
