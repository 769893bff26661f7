"""A Dataset that lists its image files with ``os.listdir`` and takes the labels from an
annotation file sorted by file name: ``os.listdir`` returns the names in the order the file
system keeps them, not sorted, so the i-th image gets the i-th name's label - another
image's. Every label is valid and the classes are balanced; they just do not belong to
their images, and the model can learn nothing but the class frequencies.

Reported: "Classifier acc" -
https://github.com/NoahVl/Explaining-In-Style-Reproducibility-Study/issues/9 ("somehow the
labels and the images are not loaded in the same order. That is why when training or
testing, the labels do not correspond to the images ... You can fix it by sorting the
image_paths list"; a second user: "I can confirm that I had this same issue and
@DavidMrd's fix worked for me"). Here each digit is a "file" named by its number, the
labels are read in name order, and the directory's order is a fixed shuffle of the names
(what a file system's hash order looks like). Fix: ``sorted(os.listdir(...))``.

Measured: held-out accuracy 0.07 against the fixed twin's 0.87 after 150 steps (the
bug's training loss stays at 2.27, chance for ten classes).
"""
import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

import nndebug as nd
from benchmarks.real_bugs._common import classification, mlp

TITLE = "Classifier acc"
LINK = "https://github.com/NoahVl/Explaining-In-Style-Reproducibility-Study/issues/9"
EXPECTED = ("LOSS_AT_CHANCE",)
STEPS = 150
BATCH = 64
TRAIN = 1200


class ImageFolderWithAnnotations(Dataset):
    """Images stored as named files, labels in an annotation table keyed by file name."""

    def __init__(self, files, annotations, sort_listing):
        listing = list(files)                    # os.listdir: the directory's own order
        self.names = sorted(listing) if sort_listing else listing   # BUG when unsorted
        self.files = files
        # the annotation file, read in file-name order, one label per row
        self.labels = [annotations[name] for name in sorted(annotations)]

    def __len__(self):
        return len(self.names)

    def __getitem__(self, index):
        return self.files[self.names[index]], self.labels[index]


def directory(x, y):
    """The digits as files ``{name: image}`` in the directory's (hash) order, and the
    annotation table ``{name: label}``."""
    names = [f"{i:05d}.png" for i in range(len(x))]
    stored = np.random.default_rng(0).permutation(len(x))
    files = {names[i]: x[i] for i in stored.tolist()}
    return files, {name: int(label) for name, label in zip(names, y.tolist())}


def held_out():
    x, y = classification()
    return x[TRAIN:], y[TRAIN:]


def train(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    files, annotations = directory(x[:TRAIN], y[:TRAIN])
    data = ImageFolderWithAnnotations(files, annotations, sort_listing=fixed)
    loader = DataLoader(data, batch_size=BATCH, shuffle=True,
                        generator=torch.Generator().manual_seed(0))
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
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
