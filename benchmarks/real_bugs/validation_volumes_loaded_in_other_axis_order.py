"""A 3-D CNN is trained on CT volumes read with SimpleITK, whose arrays are (z, y, x), and
validated on volumes read with nibabel, whose arrays are (x, y, z): nothing fails - the
network pools globally and takes any shape - but every validation volume reaches it with its
cranio-caudal axis where the training volumes had left-right. The validation accuracy stays
low however well the network learns, and the model looks useless on the new data.

Reported: "Axis ordering revision while apply pre-trained model to custom dataset" -
https://github.com/MIC-DKFZ/nnUNet/issues/1167 (quoting the maintainer: the scans you
predict must have the same axis ordering as the training data, e.g. a[12] always an axial
slice, "if they don't the performance can degrade a lot. I did run into this issue myself
when I was applying KiTS to some internal CT data"; the reporter asked how to reorder the
arrays). Here volumes of 8 axial slices x 12 x 12 with a bright structure along z, y or x
(the class; benchmarks/real_bugs/_med.py), a small 3-D CNN, validated every 50 steps. Fix:
transpose the nibabel arrays to (z, y, x) (.permute(2, 1, 0)) before validating.

Measured (200 Adam steps, batch 32; validation accuracy on 300 volumes, chance 0.33): seed
0, bug 0.33 against fixed 0.88; seeds + 1000: 0.33 against 0.91.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._med import Tiny3DCNN, accuracy, index_batches, rod_volumes

TITLE = "Axis ordering revision while apply pre-trained model to custom dataset"
LINK = "https://github.com/MIC-DKFZ/nnUNet/issues/1167"
EXPECTED = ("VALIDATION_COLUMNS_REORDERED", "INPUT_LAYOUT_SCRAMBLED")
STEPS = 200
VALIDATE_EVERY = 50


def as_nibabel(volumes):
    """(N, z, y, x) arrays -> the (N, x, y, z) arrays nibabel's get_fdata() gives."""
    return volumes.permute(0, 3, 2, 1).contiguous()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    volumes, y = rod_volumes(600, seed=0)             # read with SimpleITK: (z, y, x)
    val_volumes, val_y = rod_volumes(300, seed=1)
    val_volumes = as_nibabel(val_volumes)              # read with nibabel: (x, y, z)
    if fixed:
        val_volumes = val_volumes.permute(0, 3, 2, 1)  # back to (z, y, x)
    x, val_x = volumes[:, None], val_volumes[:, None]  # BUG when not fixed: other axis order
    model = Tiny3DCNN()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for step, rows in enumerate(index_batches(len(x), steps), 1):
            optimizer.zero_grad()
            loss = loss_fn(model(x[rows]), y[rows])
            loss.backward()
            optimizer.step()
            if step % VALIDATE_EVERY:
                mon.step(loss)
                continue
            model.eval()
            with torch.no_grad():
                val_loss = loss_fn(model(val_x[:100]), val_y[:100])
            model.train()
            mon.step(loss, val_loss=val_loss)
    mon.validation_accuracy = accuracy(model, val_x, val_y)
    return mon
