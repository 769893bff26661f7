"""A Dataset whose __getitem__ normalises the stored image in place (``im -= mean``,
``im /= std`` on a view of the array it keeps): every read writes the normalised sample
back into the dataset, so each epoch normalises the already normalised data once more. With
a standard deviation under one the inputs grow by a constant factor every epoch, and the
model, trained on inputs that keep changing scale, stops learning after a few epochs.

Reported: "Fixed Cifar10 dataset __getitem__ transformations modifying loaded data
permanently" - https://github.com/facebookresearch/pycls/pull/21 (the data augmentation
"in place, causing each call to __getitem__ ... to modify the loaded dataset permanently";
unnoticed with worker processes, which get a fresh copy each epoch, but with
``NUM_WORKERS=0`` "the model ... fail[s] to train after ~3 epochs"; the fix copies the
sample in __getitem__). Here 1000 digits kept as one float tensor, a Dataset normalising
each read with the training set's mean and std in place, read by
``DataLoader(batch_size=64, shuffle=True)`` in the main process (``num_workers=0``), 16
batches an epoch. Fix: normalise a copy, ``(self.x[i] - mean) / std``.

Trained as pycls trains, with SGD and momentum 0.9 (lr 0.05).

Measured: held-out accuracy 0.10 against the fixed twin's 0.98 after 150 steps (about 9
epochs; the largest stored pixel 8.7e3 at the end, 1.0 in the twin, as loaded).
"""
import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

import nndebug as nd
from benchmarks.real_bugs._common import classification, mlp

TITLE = ("Fixed Cifar10 dataset __getitem__ transformations modifying loaded data "
         "permanently")
LINK = "https://github.com/facebookresearch/pycls/pull/21"
EXPECTED = ("DATASET_MODIFIED_BY_READS",)
STEPS = 150
BATCH = 64
TRAIN = 1000


class NormalisedDigits(Dataset):
    """Digits kept as one tensor, normalised on every read (as pycls' color_norm)."""

    def __init__(self, x, y, copy_before_normalising):
        self.x, self.y = x, y
        self.mean, self.std = float(x.mean()), float(x.std())
        self.copy_before_normalising = copy_before_normalising

    def __len__(self):
        return len(self.x)

    def __getitem__(self, index):
        if self.copy_before_normalising:               # the fix
            image = (self.x[index] - self.mean) / self.std
        else:                                          # BUG: a view, written in place
            image = self.x[index]
            image -= self.mean
            image /= self.std
        return image, self.y[index]


def shuffled_digits():
    x, y = classification()
    order = torch.from_numpy(np.random.default_rng(1).permutation(len(x)))
    return x[order], y[order]


def held_out():
    """The held-out digits, normalised once with the training statistics."""
    x, y = shuffled_digits()
    train_x = x[:TRAIN]
    return (x[TRAIN:] - train_x.mean()) / train_x.std(), y[TRAIN:]


def train(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = shuffled_digits()
    data = NormalisedDigits(x[:TRAIN].clone(), y[:TRAIN], copy_before_normalising=fixed)
    loader = DataLoader(data, batch_size=BATCH, shuffle=True,
                        generator=torch.Generator().manual_seed(0))
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
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
    return mon, model, data


def run(fixed=False, steps=STEPS, **watch):
    return train(fixed, steps, **watch)[0]
