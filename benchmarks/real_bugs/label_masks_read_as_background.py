"""Segmentation label files saved as 16-bit images and read through an 8-bit conversion:
the conversion keeps the high byte of each value, so the class ids 0 and 1 both read as 0
and every pixel of every mask is background. The network learns to answer "background"
everywhere - 100% on class 0, 0% on class 1 - with a loss that falls to almost zero.

Reported: "Trick between uint8 and uint16 of labels" -
https://github.com/alexgkendall/SegNet-Tutorial/issues/161 ("there was always 100% for 0
class and 0% for 1 class in binary case. Actually it's not the problem of code but the
label files. If the label files are uint16, the 1 pixels will be regarded as 0 so that the
model can't be trained. I tried to transform them into uint8 ... then it works"). Here a
small fully convolutional net segments noisy 16x16 images holding one bright rectangle,
its 0/1 masks stored as uint16 and read as 8-bit by keeping the high byte (value >> 8), as
16-to-8-bit image conversions do. Fix: store (or read) the labels as 8-bit class ids.

Measured (150 steps, 128 held-out scenes): the bug's foreground IoU is 0.00 (no pixel is
ever called foreground), the fixed twin's 0.97.
"""
import numpy as np
import torch
from torch import nn

TITLE = "Trick between uint8 and uint16 of labels"
LINK = "https://github.com/alexgkendall/SegNet-Tutorial/issues/161"
EXPECTED = ("TARGETS_ALL_ONE_CLASS",)
STEPS = 150
SIZE = 16
BATCH_SIZE = 16


def label_files(count, rng):
    """``count`` noisy (1, SIZE, SIZE) images and their class-id masks as the label files
    hold them: uint16, 0 background and 1 object."""
    masks = np.zeros((count, SIZE, SIZE), np.uint16)
    for i in range(count):
        w, h = rng.integers(4, 10, 2)
        x1, y1 = rng.integers(0, SIZE - w + 1), rng.integers(0, SIZE - h + 1)
        masks[i, y1:y1 + h, x1:x1 + w] = 1
    images = masks[:, None].astype(np.float32) * 0.8 + rng.normal(0, 0.3, (count, 1, SIZE, SIZE))
    return images.astype(np.float32), masks


def read_labels(masks, fixed):
    """The class ids the training script sees."""
    if fixed:
        return torch.from_numpy(masks.astype(np.int64))
    # BUG (fixed=False): a 16-to-8-bit conversion keeps the high byte: 1 >> 8 == 0
    return torch.from_numpy((masks >> 8).astype(np.uint8).astype(np.int64))


def scenes(steps, fixed, seed=0):
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        images, masks = label_files(BATCH_SIZE, rng)
        yield torch.from_numpy(images), read_labels(masks, fixed)


def segmenter():
    return nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(),
                         nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 2, 1))


def run(fixed=False, steps=STEPS, **watch):
    import nndebug as nd
    torch.manual_seed(0)
    model = segmenter()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for images, labels in scenes(steps, fixed):
            optimizer.zero_grad()
            loss = loss_fn(model(images), labels)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        images, masks = label_files(128, np.random.default_rng(1))
        found = model(torch.from_numpy(images)).argmax(1).numpy() == 1
        truth = masks == 1
        mon.foreground_iou = round(float((found & truth).sum() / (found | truth).sum()), 3)
    return mon
