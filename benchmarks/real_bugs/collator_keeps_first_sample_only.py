"""A collate function that unpacks only ``batch[0]``: whatever ``batch_size`` the
DataLoader is given, every step trains on one sample and the other samples the loader read
are thrown away. An epoch costs as many steps as ever but teaches one sample in 32, and the
learning rate, chosen for batches of 32, now drives single-sample gradients.

Reported: "MyCollator() Only Processes batch[0]" - https://github.com/skit-ai/SpeechLLM/issues/5
(the collator's first line unpacks ``batch[0]``, "this row means that only the first sample
in each mini-batch will be utilized"; the same one-liner in another trainer,
``collate_fn=lambda x: x[0]``, "keeps only the first sample of every batch, so the
effective batch size becomes 1 no matter what we set"). Here the digits read by
``DataLoader(batch_size=32, shuffle=True)`` with a collator that builds its tensors from
``batch[0]``. Fix: collate every sample of the batch.

Measured: held-out accuracy 0.30 against the fixed twin's 0.88 after 150 steps (the bug
trained on 150 digits in all, the twin on 4800).
"""
import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

import nndebug as nd
from benchmarks.real_bugs._common import classification, mlp

TITLE = "MyCollator() Only Processes batch[0]"
LINK = "https://github.com/skit-ai/SpeechLLM/issues/5"
EXPECTED = ("COLLATE_KEEPS_ONE_SAMPLE",)
STEPS = 150
BATCH = 32
TRAIN = 1000


class Collator:
    """Builds the model's (inputs, labels) tensors from the samples the loader read."""

    def __init__(self, every_sample):
        self.every_sample = every_sample

    def __call__(self, batch):
        if self.every_sample:                          # the fix
            pixels = torch.stack([x for x, _ in batch])
            labels = torch.stack([y for _, y in batch])
            return pixels, labels
        pixels, label = batch[0]                       # BUG: the first sample only
        return pixels[None], label[None]


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
    loader = DataLoader(TensorDataset(x[:TRAIN], y[:TRAIN]), batch_size=BATCH, shuffle=True,
                        collate_fn=Collator(every_sample=fixed),
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
