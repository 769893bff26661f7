"""A segmentation Dataset whose joint ("co-") transform returns the transformed input and
target, unpacked into the input twice: ``input, input = co_transform(input, target)``. The
input becomes the transformed mask, the target stays the untransformed mask, and the
image itself never reaches the model. The model learns to copy (or un-flip) a mask; on
real images it is useless.

Reported: "CSVDataset copies label to input" - https://github.com/nitrain/nitrain/issues/92
("On line 414 of datasets.py it should be input_sample[i], **target_sample**[i] =
self.co_transform[i](input_sample[i], target_sample[i])"). Here the digits as images, their
stroke masks (pixels above one half) as targets, a random horizontal flip as the joint
transform, and a small conv net. Fix: unpack into ``input, target``.

Measured: held-out pixel accuracy on real images 0.956 against the fixed twin's 0.995
after 150 steps (training loss 0.31 against 0.04).

Why watch misses it: the model's input is the target mask (mirrored in half of the
samples): an autoencoder's input is its target too, on purpose, and no recorded statistic
compares an input with its target up to a flip. The loss falls, only to a worse floor;
every input is in range, every target a valid 0/1 mask.
"""
import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

import nndebug as nd
from benchmarks.real_bugs._common import classification

TITLE = "CSVDataset copies label to input"
LINK = "https://github.com/nitrain/nitrain/issues/92"
EXPECTED = ("TARGETS_IN_INPUTS",)
STEPS = 150
BATCH = 64
TRAIN = 1000
STROKE = 0.5               # a pixel above this is part of the digit's stroke (the mask)


def flip_both(image, mask):
    """The joint transform: the same random horizontal flip for the image and its mask."""
    if torch.rand(()) < 0.5:
        return image.flip(-1), mask.flip(-1)
    return image, mask


class Strokes(Dataset):
    def __init__(self, images, unpack_into_target):
        self.images = images
        self.masks = (images > STROKE).float()
        self.unpack_into_target = unpack_into_target

    def __len__(self):
        return len(self.images)

    def __getitem__(self, index):
        image, mask = self.images[index], self.masks[index]
        if self.unpack_into_target:                       # the fix
            image, mask = flip_both(image, mask)
        else:                                             # BUG: the input, twice
            image, image = flip_both(image, mask)
        return image, mask


def shuffled_images():
    x, _ = classification(images=True)
    return x[torch.from_numpy(np.random.default_rng(0).permutation(len(x)))]


def held_out():
    images = shuffled_images()[TRAIN:]
    return images, (images > STROKE).float()


def score(model):
    """Held-out pixel accuracy of the predicted masks on real images."""
    images, masks = held_out()
    with torch.no_grad():
        return float(((model(images) > 0).float() == masks).float().mean())


def train(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    data = Strokes(shuffled_images()[:TRAIN], unpack_into_target=fixed)
    loader = DataLoader(data, batch_size=BATCH, shuffle=True,
                        generator=torch.Generator().manual_seed(0))
    model = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(),
                          nn.Conv2d(8, 1, 3, padding=1))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    loss_fn = nn.BCEWithLogitsLoss()
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
    return mon, model


def run(fixed=False, steps=STEPS, **watch):
    return train(fixed, steps, **watch)[0]
