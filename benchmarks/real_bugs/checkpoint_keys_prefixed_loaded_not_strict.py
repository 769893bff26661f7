"""A backbone checkpoint saved from an nn.DataParallel model (every key starts with
'module.') loaded with load_state_dict(..., strict=False) into the plain model: no key
matches, nothing is loaded and no error is raised; the backbone is then frozen for a linear
probe, so the head trains on top of random features.

Reported: "Have the same accuracy" - https://github.com/BestJuly/IIC/issues/11 (with
strict=True the load fails with "Missing key(s) in state_dict"; with strict=False the
fine-tuned models all reach the same accuracy); the 'module.' prefix itself:
https://github.com/pytorch/pytorch/issues/3805. Here a small CNN backbone pretrained on the
digits inside nn.DataParallel, saved, reloaded with strict=False, frozen, and a linear head
trained on top. Fix: strip the 'module.' prefix (or save model.module.state_dict()) and load
with strict=True.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "Have the same accuracy"
LINK = "https://github.com/BestJuly/IIC/issues/11"
EXPECTED = ("FROZEN_PARAMETERS",)
STEPS = 150
PRETRAIN_STEPS = 300


def backbone():
    return nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten())


def pretrained_checkpoint(x, y):
    """The state dict of a backbone trained inside nn.DataParallel, as it was saved."""
    parallel = nn.DataParallel(nn.Sequential(backbone(), nn.Linear(64, 10)))
    optimizer = torch.optim.Adam(parallel.parameters(), lr=3e-3)
    for xb, yb in batches(x, y, PRETRAIN_STEPS, seed=1):
        optimizer.zero_grad()
        nn.functional.cross_entropy(parallel(xb), yb).backward()
        optimizer.step()
    saved = parallel.state_dict()                      # keys: 'module.0.0.weight', ...
    return {key: value for key, value in saved.items() if key.startswith("module.0.")}


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification(images=True)
    checkpoint = pretrained_checkpoint(x, y)
    features = backbone()
    if fixed:
        checkpoint = {key.removeprefix("module.0."): value for key, value in checkpoint.items()}
        features.load_state_dict(checkpoint, strict=True)
    else:
        features.load_state_dict(checkpoint, strict=False)   # BUG: no key matches
    for p in features.parameters():
        p.requires_grad_(False)
    model = nn.Sequential(features, nn.Linear(64, 10))
    optimizer = torch.optim.Adam(model[1].parameters(), lr=3e-3)
    return train_watched(model, optimizer, nn.CrossEntropyLoss(), batches(x, y, steps),
                         **watch)
