"""A multi-class segmentation mask (class ids 0, 1, 2 stored as uint8) sent through the same
``ToTensor()`` as the images: ToTensor divides uint8 data by 255, so the ids become 0,
0.0039 and 0.0078, and the ``.long()`` the loss needs rounds every one of them down to 0.
Every pixel is "background": the loss falls to zero at once and the model learns nothing.

Reported: "Grayscale image mask is transformed in a performance decreasing way with
ToTensor()" - https://github.com/pytorch/vision/issues/2497 ("the labels are grayscale in a
2d array with values from 0 to NUM_CLASSES ... the performance was incredibly bad and the
models could not even overfit on a simple dataset ... the values become some float values
because of the [0,255] to [0,1] rescaling"; fixed by building the mask with torch.tensor()).
Here a small fully convolutional net labels each pixel of the 8x8 digits as background,
faint ink or strong ink; ``to_tensor`` below does what torchvision's ToTensor does to a
uint8 (H, W) array (torchvision is not needed). Fix: ``torch.as_tensor(mask).long()``.

Measured: the loss falls to 0.001 (0.07 for the fixed twin) and the trained net labels
0.58 of the pixels right against the true masks (0.98 fixed): the share of background.
"""
import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "Grayscale image mask is transformed in a performance decreasing way with ToTensor()"
LINK = "https://github.com/pytorch/vision/issues/2497"
EXPECTED = ("TARGETS_ALL_ONE_CLASS",)
STEPS = 150
CLASSES = 3
FAINT, STRONG = 0.2, 0.6        # ink levels that separate the three classes


def to_tensor(array):
    """torchvision's ToTensor on a uint8 (H, W) array: a (1, H, W) float tensor / 255."""
    return torch.from_numpy(array.astype(np.float32) / 255.0)[None]


def mask_of(image):
    """The stored annotation: a uint8 (8, 8) array of class ids 0, 1, 2."""
    ids = (image >= FAINT).astype(np.uint8) + (image >= STRONG).astype(np.uint8)
    return ids


def loaded(images, fixed):
    """What the dataset's __getitem__ returns for each image: the mask as class ids."""
    masks = []
    for image in images.numpy():
        stored = mask_of(image[0])
        if fixed:
            masks.append(torch.as_tensor(stored).long())
        else:
            masks.append(to_tensor(stored)[0].long())   # BUG: ToTensor divides ids by 255
    return torch.stack(masks)


def segmenter():
    return nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(),
                         nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, CLASSES, 1))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, _ = classification(images=True)
    masks = loaded(x, fixed)
    model = segmenter()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    return train_watched(model, optimizer, F.cross_entropy, batches(x, masks, steps), **watch)
