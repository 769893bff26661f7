"""A multi-label task (each sample may carry several labels at once) trained with
CrossEntropyLoss on its multi-hot targets. Recent torch takes a float target of the
output's shape as class probabilities without complaint, so nothing fails: the softmax
makes the labels compete for one unit of probability, a sample with three labels can at
best give each a third, and the loss never reaches its floor.

Reported: "RuntimeError: multi-target not supported for CrossEntropyLoss" -
https://github.com/wenliangdai/Modality-Transferable-MER/issues/3 ("Since CMU-MOSEI is a
multi-label classification task, we need to use binary cross entropy loss, so the command
for CMU-MOSEI should use bce loss instead of ce"; the author: "yes you are right"). The
torch of 2020 refused the call; today's runs it. Here four properties of the digit
(even, at least 5, has a closed loop, prime), 0 to 3 of them per image.
Fix: BCEWithLogitsLoss (one sigmoid per label).
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, mlp, train_watched

TITLE = "RuntimeError: multi-target not supported for CrossEntropyLoss"
LINK = "https://github.com/wenliangdai/Modality-Transferable-MER/issues/3"
EXPECTED = ("MULTI_LABEL_WITH_CROSS_ENTROPY",)
STEPS = 150


def properties(digits):
    """(N, 4) multi-hot float targets: even, >= 5, has a loop, prime."""
    loops = torch.tensor([1, 0, 0, 0, 0, 0, 1, 0, 1, 1])
    primes = torch.tensor([0, 0, 1, 1, 0, 1, 0, 1, 0, 0])
    return torch.stack([digits % 2 == 0, digits >= 5, loops[digits] == 1,
                        primes[digits] == 1], dim=1).float()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, digits = classification()
    y = properties(digits)
    model = mlp(outputs=4)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    # BUG: softmax over labels that do not exclude each other
    loss_fn = nn.BCEWithLogitsLoss() if fixed else nn.CrossEntropyLoss()
    return train_watched(model, optimizer, loss_fn, batches(x, y, steps), **watch)
