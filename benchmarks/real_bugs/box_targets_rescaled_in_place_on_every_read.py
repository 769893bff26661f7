"""A Dataset whose __getitem__ converts the stored box targets from pixels to relative
coordinates in place (``target /= size`` on the array it keeps): the first epoch reads
boxes in [0, 1], the second the same boxes divided by the image size once more, and so on.
The regression head chases targets that shrink towards zero epoch after epoch, and ends
predicting boxes far too small.

Reported: "[datasets] Targets are modified inplace" - https://github.com/mindee/doctr/issues/840
("Targets are being changed when iterating over some dataset more than one time. The
reason is storing targets in self.data, and changing them in the __getitem__ in place";
fixed by copying the target when it is read). Here the box is the ink's bounding box in
the 8x8 digit (left, top, right, bottom, in pixels, kept as one float tensor), read
by ``DataLoader(batch_size=64, shuffle=True)``, 16 batches an epoch; the dataset divides
each read target by 8 in place. Fix: divide a copy, ``self.boxes[i] / SIZE``.

Measured: held-out mean absolute error 0.51 (relative units; the boxes span 0-1) against
the fixed twin's 0.05 after 150 steps (from the third epoch on, every target read is at
most 0.016).
"""
import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

import nndebug as nd
from benchmarks.real_bugs._common import classification, mlp

TITLE = "[datasets] Targets are modified inplace"
LINK = "https://github.com/mindee/doctr/issues/840"
EXPECTED = ("DATASET_MODIFIED_BY_READS",)
STEPS = 150
BATCH = 64
TRAIN = 1000
SIZE = 8.0                 # the image's side, in pixels


def ink_boxes(x):
    """(left, top, right, bottom) of the pixels above 0.2, in pixels (right/bottom: the
    edge after the last inked pixel), for flat 8x8 images."""
    ink = x.reshape(-1, 8, 8) > 0.2
    columns, rows = ink.any(1), ink.any(2)
    index = torch.arange(8)
    left = torch.where(columns, index, 8).min(1).values
    right = torch.where(columns, index, -1).max(1).values + 1
    top = torch.where(rows, index, 8).min(1).values
    bottom = torch.where(rows, index, -1).max(1).values + 1
    return torch.stack([left, top, right, bottom], 1).float()


class BoxedDigits(Dataset):
    """Digits and their boxes in pixels; __getitem__ serves the box in relative units."""

    def __init__(self, x, boxes, copy_before_rescaling):
        self.x, self.boxes = x, boxes
        self.copy_before_rescaling = copy_before_rescaling

    def __len__(self):
        return len(self.x)

    def __getitem__(self, index):
        if self.copy_before_rescaling:                 # the fix
            target = self.boxes[index] / SIZE
        else:                                          # BUG: a view, divided in place
            target = self.boxes[index]
            target /= SIZE
        return self.x[index], target


def shuffled_digits():
    x, _ = classification()
    order = torch.from_numpy(np.random.default_rng(1).permutation(len(x)))
    return x[order], ink_boxes(x[order])


def held_out():
    x, boxes = shuffled_digits()
    return x[TRAIN:], boxes[TRAIN:] / SIZE


def held_out_error(predicted, boxes):
    return "mae %.3f" % float((predicted - boxes).abs().mean())


def train(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, boxes = shuffled_digits()
    data = BoxedDigits(x[:TRAIN], boxes[:TRAIN].clone(), copy_before_rescaling=fixed)
    loader = DataLoader(data, batch_size=BATCH, shuffle=True,
                        generator=torch.Generator().manual_seed(0))
    model = mlp(outputs=4)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.MSELoss()
    done = 0
    with nd.watch(model, optimizer, **watch) as mon:
        while done < steps:
            for xb, yb in loader:
                optimizer.zero_grad()
                loss = loss_fn(model(xb), yb)
                loss.backward()
                optimizer.step()
                mon.step(loss)
                done += 1
                if done == steps:
                    break
    return mon, model, data


def run(fixed=False, steps=STEPS, **watch):
    return train(fixed, steps, **watch)[0]
