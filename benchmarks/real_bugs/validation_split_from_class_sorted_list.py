"""The training data is split into a training and a validation part by position
(``indices[:split]`` and ``indices[split:]``) without shuffling first. The list was built
folder by folder, so it is sorted by class: the training part holds the first classes, the
validation part the last ones. The model never sees a validation class in training; its
validation loss climbs while the training loss falls, and validation accuracy stays at
zero - read as a model that does not generalise.

Reported: "validate loss cannot update" - https://github.com/khanrc/pt.darts/issues/24
("loss and prec1 during training is a normal drop, but during validate, loss is always some
value, prec1 also keep zero"; answered: "The reason is the trainset is not shuffled before
split it. Shuffle the indices before split", with the fixed code: np.random.shuffle(indices)
before SubsetRandomSampler(indices[:split])). Here the digits listed class by class (as an
ImageFolder lists them), split half and half by position, each half drawn by a
SubsetRandomSampler; a validation pass every epoch. Fix: shuffle the indices before
splitting (or split per class).

Measured (300 steps, seed 0): the bug's validation loss climbs from 3.9 to 9.8 with accuracy
0.003 (the classes 5-9 never trained on); the fixed twin's falls to 0.19, accuracy 0.95.
"""
import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, SubsetRandomSampler, TensorDataset

import nndebug as nd
from benchmarks.real_bugs._common import classification

TITLE = "validate loss cannot update"
LINK = "https://github.com/khanrc/pt.darts/issues/24"
EXPECTED = ("VALIDATION_CLASSES_UNSEEN",)
STEPS = 300
TRAIN_SHARE = 0.5


def validation(model, loader):
    model.eval()
    total, right, n = 0.0, 0, 0
    with torch.no_grad():
        for xb, yb in loader:
            logits = model(xb)
            total += float(F.cross_entropy(logits, yb, reduction="sum"))
            right += int((logits.argmax(1) == yb).sum())
            n += len(yb)
    model.train()
    return total / n, right / n


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    by_class = torch.argsort(y, stable=True)           # listed folder by folder, class by class
    dataset = TensorDataset(x[by_class], y[by_class])
    indices = list(range(len(dataset)))
    split = int(TRAIN_SHARE * len(indices))
    if fixed:
        np.random.default_rng(42).shuffle(indices)
    # BUG (unfixed): split by position without shuffling: the halves hold different classes
    train_loader = DataLoader(dataset, batch_size=64, sampler=SubsetRandomSampler(
        indices[:split], generator=torch.Generator().manual_seed(1)))
    valid_loader = DataLoader(dataset, batch_size=64, sampler=SubsetRandomSampler(
        indices[split:], generator=torch.Generator().manual_seed(2)))
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    done, vals = 0, []
    with nd.watch(model, optimizer, **watch) as mon:
        while done < steps:
            for xb, yb in train_loader:
                optimizer.zero_grad()
                loss = F.cross_entropy(model(xb), yb)
                loss.backward()
                optimizer.step()
                done += 1
                val = None
                if done == steps or done % len(train_loader) == 0:
                    val, accuracy = validation(model, valid_loader)
                    vals.append(round(val, 2))
                mon.step(loss, val_loss=val)
                if done == steps:
                    break
    mon.extra = {"val_losses": vals, "val_accuracy": round(accuracy, 3)}
    return mon
