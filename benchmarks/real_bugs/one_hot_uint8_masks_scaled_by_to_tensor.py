"""A segmentation dataset whose one-hot masks are saved as uint8 .npy files and go through
the same ToTensor conversion as the images. ToTensor divides uint8 arrays by 255, so every
1 of the one-hot masks becomes 1/255 = 0.0039: the binary cross-entropy then asks for a
probability of 0.4% on the foreground channel at the object's pixels too. The loss falls
towards that target's entropy, the network learns to answer "almost nothing" everywhere,
and no pixel is ever predicted as object.

Reported: "Custom dataset labels change if numpy dtype is uint8" -
https://github.com/pytorch/pytorch/issues/53959 (one-hot labels stored as uint8 .npy files
change "into an unknown decimal number ... it completely messes up the training as the
optimizer will train the model to return 0"; "adding .astype('int32') to the np.load
fixes the issue"). Here noisy 8x8 digits (uint8 grey levels) and the mask of their strokes
as a uint8 one-hot array (background, stroke) of shape (8, 8, 2), both converted by a
function with ToTensor's rule (HWC -> CHW, uint8 divided by 255); a 3-layer conv net gives
2 logits per pixel, BCEWithLogitsLoss against the mask, Adam lr 3e-3, batches of 32,
200 steps; 297 images held out.

Fix: load the masks as ``.astype('int32')`` (ToTensor leaves other dtypes unscaled) and take
them as float.

Measured (held-out stroke IoU, sigmoid of the stroke channel above 0.5): 0.000 with the
bug, 0.803 fixed; seeds + 1000: 0.000 vs 0.797.
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import classification, index_batches

TITLE = "Custom dataset labels change if numpy dtype is uint8"
LINK = "https://github.com/pytorch/pytorch/issues/53959"
EXPECTED = ("BINARY_TARGETS_SCALED_DOWN",)
STEPS = 200
HELD_OUT = 297


def files():
    """What the .npy files hold: noisy uint8 images (N, 8, 8, 1) and uint8 one-hot masks
    of the strokes (N, 8, 8, 2)."""
    x, _ = classification()
    rng = np.random.default_rng(0)
    clean = x.numpy().reshape(-1, 8, 8)
    noisy = np.clip(clean + rng.normal(0, 0.25, clean.shape), 0, 1)
    images = np.round(noisy * 255).astype(np.uint8)[..., None]
    stroke = (clean > 0.5).astype(np.int64)
    masks = np.eye(2, dtype=np.uint8)[stroke]          # one-hot, stored as uint8
    return images, masks


def to_tensor(array):
    """ToTensor's rule for numpy arrays: HWC -> CHW, and divided by 255 only when uint8."""
    t = torch.from_numpy(np.ascontiguousarray(array.transpose(0, 3, 1, 2)))
    return t.float().div(255) if t.dtype == torch.uint8 else t


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    images, masks = files()
    if fixed:
        masks = masks.astype("int32")                   # the report's fix
    x = to_tensor(images)
    y = to_tensor(masks).float()                        # BUG (uint8): 1 -> 1/255
    model = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(),
                          nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(),
                          nn.Conv2d(16, 2, 3, padding=1))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.BCEWithLogitsLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(x) - HELD_OUT, steps, batch_size=32, seed=0):
            optimizer.zero_grad()
            loss = loss_fn(model(x[index]), y[index])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        predicted = torch.sigmoid(model(x[-HELD_OUT:])[:, 1]) > 0.5
        truth = torch.from_numpy(masks[-HELD_OUT:, ..., 1] == 1)
        union = (predicted | truth).sum()
        mon.held_out_iou = round(float((predicted & truth).sum() / union.clamp(min=1)), 3)
    return mon
