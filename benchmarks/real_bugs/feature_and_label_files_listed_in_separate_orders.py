"""A Dataset over pre-extracted features reads its feature files and its label files from
two directories, each listed with ``os.listdir`` and paired by position: ``features[i]``
with ``labels[i]``. ``os.listdir`` returns names in whatever order the file system keeps
them, and nothing makes the two directories agree, so the i-th feature file is paired with
some other sample's label. Every pair is still a valid (feature, class) pair, the loader
batches them, the model fits what it can of the scrambled pairs - and nothing it learns
carries over to held-out samples.

Reported: "CustomDataset file order" - https://github.com/chuanyangjin/fast-DiT/issues/4
(train.py's CustomDataset builds ``features_files`` and ``labels_files`` with
``os.listdir`` on the two folders of extracted features and class labels and indexes both
with the same idx; ``os.listdir`` does not guarantee an order, so features and labels can
be mismatched. The maintainer fixed it by sorting both lists). Here the digits' pixels
stand in for the extracted features, one "file" per training row in each of the two
directories, named alike; the order each directory listing comes back in is drawn at
random per directory (what the file system returns is not the names' order). A
``Dataset`` pairs the listings by position and a shuffled ``DataLoader`` (batch 64) feeds
an MLP under Adam. Fix: ``sorted()`` on both listings.

Measured (held-out accuracy on 497 digits never trained on, after 300 steps): seed 0: 0.127
with the bug against 0.901 for the fixed twin; seeds shifted by 1000: 0.149 against 0.920.
"""
import numpy as np
import torch
from torch.nn import functional as F
from torch.utils.data import DataLoader, Dataset

import nndebug as nd
from benchmarks.real_bugs._dp157 import accuracy, digits_split, loader_generator, mlp

TITLE = "CustomDataset file order"
LINK = "https://github.com/chuanyangjin/fast-DiT/issues/4"
EXPECTED = ("LOSS_AT_CHANCE", "LABELS_UNRELATED_TO_INPUTS", "LABELS_MISALIGNED")
STEPS = 300
BATCH = 64


class FileSystem:
    """Two directories of per-sample files with the same names; ``listdir`` answers in each
    directory's own storage order (not the names' order), as a real file system may."""

    def __init__(self, features, labels, rng):
        names = [f"{i:05d}.npy" for i in range(len(features))]
        self.files = {"features": dict(zip(names, features)),
                      "labels": dict(zip(names, labels))}
        self.order = {d: [names[i] for i in rng.permutation(len(names))] for d in self.files}

    def listdir(self, directory):
        return list(self.order[directory])

    def load(self, directory, name):
        return self.files[directory][name]


class FeatureDataset(Dataset):
    def __init__(self, fs, fixed):
        self.fs = fs
        self.feature_files = fs.listdir("features")
        self.label_files = fs.listdir("labels")
        if fixed:                # the fix: one order for both listings
            self.feature_files = sorted(self.feature_files)
            self.label_files = sorted(self.label_files)

    def __len__(self):
        return len(self.feature_files)

    def __getitem__(self, idx):      # BUG (unsorted): the idx-th name of each listing
        return (self.fs.load("features", self.feature_files[idx]),
                self.fs.load("labels", self.label_files[idx]))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x, y, x_test, y_test = digits_split()
    data = FeatureDataset(FileSystem(x, y, rng), fixed)
    loader = DataLoader(data, batch_size=BATCH, shuffle=True, drop_last=True,
                        generator=loader_generator(1))
    model = mlp()
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
    mon.held_out_accuracy = accuracy(model, x_test, y_test)
    return mon
