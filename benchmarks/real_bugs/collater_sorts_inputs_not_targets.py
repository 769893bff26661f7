"""A collate function that sorts a batch's sequences by length (longest first, as packing
wants) and pads them, while the labels are collated from the samples in the order they
came: after the sort, most rows of the batch carry another row's label, and the classifier
learns from labels that no longer match its inputs.

Reported: "Dataset Indexing Issue" - https://github.com/asappresearch/slue-toolkit/issues/37
(in the data collator of AddLabelDataset, "If self.dataset.collater sort the collated
data, target and collated will become mismatched"). Here each digit is a sequence of its
pixels up to its last inked one (59 to 64 values), the collater sorts the sequences by
length and pads them to 64, and the labels are stacked from the unsorted list. Fix: take
the labels in the same sorted order as the inputs.

Measured: held-out accuracy 0.16 against the fixed twin's 0.95 after 150 steps.
"""
import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

import nndebug as nd
from benchmarks.real_bugs._common import classification, mlp

TITLE = "Dataset Indexing Issue"
LINK = "https://github.com/asappresearch/slue-toolkit/issues/37"
EXPECTED = ("LOSS_AT_CHANCE", "LABELS_MISALIGNED")
STEPS = 150
BATCH = 64
TRAIN = 1000
LENGTH = 64


class PixelSequences(Dataset):
    """Each digit as the sequence of its pixels, cut after its last inked pixel."""

    def __init__(self, x, y):
        self.x, self.y = x, y

    def __len__(self):
        return len(self.x)

    def __getitem__(self, index):
        pixels = self.x[index]
        last = int(torch.nonzero(pixels).max()) + 1
        return pixels[:last], self.y[index]


def pad(sequences):
    batch = torch.zeros(len(sequences), LENGTH)
    for row, sequence in enumerate(sequences):
        batch[row, :len(sequence)] = sequence
    return batch


def collater(labels_follow_sort):
    """Sorts by length, longest first, and pads; the labels follow the sort only in the
    fixed twin."""
    def collate(samples):
        order = sorted(range(len(samples)), key=lambda i: -len(samples[i][0]))
        inputs = pad([samples[i][0] for i in order])
        lengths = torch.tensor([len(samples[i][0]) for i in order])
        if labels_follow_sort:                         # the fix
            labels = torch.stack([samples[i][1] for i in order])
        else:                                          # BUG: labels in the original order
            labels = torch.stack([label for _, label in samples])
        return inputs, lengths, labels
    return collate


def shuffled_digits():
    x, y = classification()
    order = torch.from_numpy(np.random.default_rng(1).permutation(len(x)))
    return x[order], y[order]


def held_out():
    x, y = shuffled_digits()
    return x[TRAIN:], y[TRAIN:]


def train(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = shuffled_digits()
    loader = DataLoader(PixelSequences(x[:TRAIN], y[:TRAIN]), batch_size=BATCH,
                        shuffle=True, collate_fn=collater(labels_follow_sort=fixed),
                        generator=torch.Generator().manual_seed(0))
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.CrossEntropyLoss()
    done = 0
    with nd.watch(model, optimizer, **watch) as mon:
        while done < steps:
            for xb, _lengths, yb in loader:
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
