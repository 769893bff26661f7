"""A Dataset memoises its samples to skip the loading work on later epochs - but the cache
sits AFTER the random augmentation, so each sample keeps the one random shift it drew on
first read, for the whole run. The augmentation, meant to show the model every digit at
several positions, collapses into one fixed, slightly displaced copy per digit: the model
never sees the same digit moved, and it generalises worse to digits that are. Nothing
fails, and the loss falls as on any healthy run.

Reported: "Cached augmentation in segmentation tutorial - this does not increase dataset
size" - https://github.com/tensorflow/tensorflow/issues/47755 (the segmentation tutorial
maps a load function that includes the random flip and then calls ``.cache()``: "we cache
that single round of augmentation, and repeat that single round forever"; the remedy,
as in tensorflow/docs#1097, is to cache the deterministic loading only and apply the
random augmentation after the cache).
Here the same pipeline in torch: a ``Dataset`` over 50 training digits per class whose
``__getitem__`` loads a digit and, with probability 1/2, shifts it by up to a pixel in each
direction, memoised in a dict by index; a shuffled ``DataLoader`` (batch 32) feeds an MLP
under Adam for 600 steps. Fix: memoise the loaded digit only and draw the shift on every
read.

Measured (held-out accuracy on 497 digits never trained on, each shifted like the
training digits - by up to a pixel with probability 1/2 - as a deployed reader meets
them; in brackets the unshifted held-out digits): seed 0: 0.748 with the bug against 0.865
for the fixed twin (0.891 against 0.924); seeds shifted by 1000: 0.763 against 0.855 (0.881
against 0.920).
"""
import torch
from torch.nn import functional as F
from torch.utils.data import DataLoader, Dataset

import nndebug as nd
from benchmarks.real_bugs._dp157 import accuracy, digits_split, loader_generator, mlp

TITLE = "Cached augmentation in segmentation tutorial - this does not increase dataset size"
LINK = "https://github.com/tensorflow/tensorflow/issues/47755"
EXPECTED = ("AUGMENTATION_FROZEN",)
STEPS = 600
BATCH = 32
PER_CLASS = 50
REACH, P_SHIFT = 1, 0.5        # shift by up to REACH pixels, with probability P_SHIFT


def random_shift(image, generator):
    """A flattened 8x8 digit moved by up to REACH pixels (zero fill), with prob. P_SHIFT."""
    if torch.rand(1, generator=generator).item() >= P_SHIFT:
        return image
    dx, dy = torch.randint(-REACH, REACH + 1, (2,), generator=generator).tolist()
    canvas = torch.zeros(8 + 2 * REACH, 8 + 2 * REACH)
    canvas[REACH:REACH + 8, REACH:REACH + 8] = image.view(8, 8)
    return canvas[REACH - dy:REACH - dy + 8, REACH - dx:REACH - dx + 8].reshape(64)


class CachedDigits(Dataset):
    def __init__(self, x, y, fixed, generator):
        self.x, self.y, self.fixed, self.generator = x, y, fixed, generator
        self.cache = {}

    def __len__(self):
        return len(self.x)

    def load(self, index):           # the deterministic part (reading, decoding)
        return self.x[index].clone()

    def __getitem__(self, index):
        if self.fixed:               # the fix: cache the load, augment on every read
            if index not in self.cache:
                self.cache[index] = self.load(index)
            return random_shift(self.cache[index], self.generator), self.y[index]
        if index not in self.cache:  # BUG: the augmented sample is what gets cached
            self.cache[index] = random_shift(self.load(index), self.generator)
        return self.cache[index], self.y[index]


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_test, y_test = digits_split()
    rows = torch.cat([torch.nonzero(y == c).flatten()[:PER_CLASS] for c in range(10)])
    augment = torch.Generator().manual_seed(int(torch.randint(1 << 30, (1,))))
    data = CachedDigits(x[rows], y[rows], fixed, augment)
    loader = DataLoader(data, batch_size=BATCH, shuffle=True, drop_last=True,
                        generator=loader_generator(1))
    model = mlp(128)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    done = 0
    with nd.watch(model, optimizer, **watch) as mon:
        while done < steps:
            for xb, yb in loader:
                optimizer.zero_grad()
                loss = F.cross_entropy(model(xb), yb)
                loss.backward()
                optimizer.step()
                mon.step(loss)
                done += 1
                if done == steps:
                    break
    jitter = torch.Generator().manual_seed(99)        # one fixed draw for every run
    shifted = torch.stack([random_shift(row, jitter) for row in x_test])
    mon.held_out_accuracy = accuracy(model, shifted, y_test)
    mon.unshifted_held_out_accuracy = accuracy(model, x_test, y_test)
    return mon
