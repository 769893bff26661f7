"""A Dataset's `__getitem__` turns the sample index into a 1-based file id
(`id_ = index % len(self) + 1`, for files 001.jpg, 002.jpg, ...) and passes the same id to
the annotation lookup, whose image ids start at 0: every image comes back with the
annotations of the next image, so the labels the model trains on have nothing to do with
the pixels it sees.

Reported: "Add plot method for VHR10 dataset" - https://github.com/torchgeo/torchgeo/pull/847
(`_load_target` called `self.coco.getAnnIds(id_)`, fixed to `getAnnIds(id_ - 1)`; the
maintainer: "I wonder how I got this working in the past if the images and labels were off
by one...", the author: "The computation is fine for `load_image` because the images are
labelled `001.jpg`, `002.jpg` ... But for `load_target` we needed the offset because we're
passing in the image id. I'm not sure it was ever working, to be honest. The tests only
asserted that images and labels were loaded as expected"). Here the 8x8 digits as the
image files, each image's annotation its digit's class (an image without an annotation
counts as an eleventh, "nothing" class), a small CNN trained through a DataLoader. Fix:
look the annotations up with `id_ - 1`.

Measured harm (accuracy on 400 held-out digits, each scored against its own class): 0.05
vs 0.95 at seed 0; seeds + 1000: 0.10 vs 0.945.
"""
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

import nndebug as nd
from benchmarks.real_bugs._beginner_dataset import accuracy, cnn, record, shuffled_digits

TITLE = "Add plot method for VHR10 dataset"
LINK = "https://github.com/torchgeo/torchgeo/pull/847"
EXPECTED = ("LOSS_AT_CHANCE", "LABELS_MISALIGNED")
STEPS = 300
HELD_OUT = 400
NOTHING = 10                # the class of an image without annotations


class TileDataset(Dataset):
    """Image files keyed by 1-based file ids, annotations keyed by 0-based image ids."""

    def __init__(self, images, classes, fixed):
        self.files = {i + 1: image for i, image in enumerate(images)}     # 001.jpg, ...
        self.annotations = {i: int(c) for i, c in enumerate(classes)}      # COCO image ids
        self.fixed = fixed

    def __len__(self):
        return len(self.files)

    def _load_image(self, id_):
        return self.files[id_]

    def _load_target(self, id_):
        image_id = id_ - 1 if self.fixed else id_        # BUG when not fixed: no offset
        return self.annotations.get(image_id, NOTHING)

    def __getitem__(self, index):
        id_ = index % len(self) + 1
        return self._load_image(id_), self._load_target(id_)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = shuffled_digits()
    train = TileDataset(x[:-HELD_OUT], y[:-HELD_OUT], fixed)
    loader = DataLoader(train, batch_size=32, shuffle=True)
    model = cnn(classes=NOTHING + 1)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    loss_fn = nn.CrossEntropyLoss()
    done = 0
    with nd.watch(model, optimizer, **watch) as mon:
        while done < steps:
            for images, targets in loader:
                optimizer.zero_grad()
                loss = loss_fn(model(images), targets)
                loss.backward()
                optimizer.step()
                mon.step(loss)
                done += 1
                if done == steps:
                    break
    record(__name__, accuracy(model, x[-HELD_OUT:], y[-HELD_OUT:]))
    return mon
