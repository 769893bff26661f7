"""A dataset built with the training transform (random crops, flips) and then split into
training and validation with ``random_split``: the validation Subsets read the same
augmenting dataset, so every evaluation scores freshly distorted images. The validation
loss the run reports is too high and moves with the draws, and whatever is chosen by it
(the best epoch, early stopping, a learning-rate plateau) follows them.

Reported: "Validation dataset is being augmented as well" -
https://github.com/gpleiss/efficient_densenet_pytorch/issues/51 ("Just found out that
transformation was applied prior to train val split, effectively augmenting validation
set"; the maintainer: "Thanks for the catch. This has been updated"). Here 500
training and 500 validation digits, the report's random crop and flip, an MLP, and the
validation loss given to the monitor after every epoch. Fix: a validation dataset built
without the augmentation (the same indices, its own transform).

Measured: after 200 steps the reported validation loss is 1.24, the un-augmented
validation set's 0.95 (the fixed twin); the training runs are alike (1.25 and 1.23).
"""
import torch
from torch.nn import functional as F
from torch.utils.data import DataLoader, Dataset, Subset, random_split

import nndebug as nd
from benchmarks.real_bugs._common import classification, mlp

TITLE = "Validation dataset is being augmented as well"
LINK = "https://github.com/gpleiss/efficient_densenet_pytorch/issues/51"
EXPECTED = ("VALIDATION_INPUTS_AUGMENTED",)
STEPS = 200
TRAIN, VAL = 500, 500
PAD = 1


class Digits(Dataset):
    """The digits as a map-style dataset with a ``transform``, as the report's CIFAR set."""

    def __init__(self, x, y, transform=None):
        self.x, self.y, self.transform = x, y, transform

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        image = self.x[i]
        if self.transform is not None:
            image = self.transform(image)
        return image.reshape(64), self.y[i]


def augment(image):
    """The report's CIFAR augmentation at the digits' scale: a random crop of the image
    padded by one pixel (RandomCrop(8, padding=1)), then a horizontal flip half the time."""
    padded = F.pad(image, (PAD, PAD, PAD, PAD))
    top, left = torch.randint(0, 2 * PAD + 1, (2,)).tolist()
    crop = padded[top:top + 8, left:left + 8]
    return crop.flip(-1) if torch.rand(()) < 0.5 else crop


def splits(x, y, fixed):
    n = TRAIN + VAL
    full = Digits(x[:n], y[:n], augment)
    # BUG when not fixed: both splits are Subsets of the augmenting dataset
    train_set, val_set = random_split(full, [TRAIN, VAL],
                                      generator=torch.Generator().manual_seed(0))
    if fixed:       # the same validation indices, read without the augmentation
        val_set = Subset(Digits(x[:n], y[:n]), val_set.indices)
    return train_set, val_set


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification(images=True)
    train_set, val_set = splits(x[:, 0], y, fixed)
    loader = DataLoader(train_set, batch_size=50, shuffle=True,
                        generator=torch.Generator().manual_seed(0))
    model = mlp(hidden=128)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    done = 0
    with nd.watch(model, optimizer, **watch) as mon:
        while done < steps:
            for xb, yb in loader:
                optimizer.zero_grad()
                loss = F.cross_entropy(model(xb), yb)
                loss.backward()
                optimizer.step()
                done += 1
                val_loss = None
                if done % len(loader) == 0:
                    x_val, y_val = next(iter(DataLoader(val_set, batch_size=VAL)))
                    model.eval()
                    with torch.no_grad():
                        val_loss = F.cross_entropy(model(x_val), y_val)
                    model.train()
                mon.step(loss, val_loss=val_loss)
                if done == steps:
                    break
    return mon
