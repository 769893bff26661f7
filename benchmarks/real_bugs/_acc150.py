"""Pieces the batch-150 cases share: a hand-written Hugging Face Accelerate loop on one CPU
process (``Accelerator(cpu=True)``, no launcher) over the 8x8 digits, with gradient
accumulation through ``accelerator.accumulate``.

Each case builds its own loop (the bug lives in the loop); this module gives the data split,
the prepared objects and the held-out score. ``fresh_accelerator`` clears Accelerate's
process-wide state first, so a bug run and its twin in one process each get the
``gradient_accumulation_steps`` they ask for."""
import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset

from benchmarks.real_bugs._common import classification, mlp

HELD_OUT = 597           # the last third of a seeded permutation of the 1,797 digits


def fresh_accelerator(**kwargs):
    """A new ``Accelerator(cpu=True, **kwargs)`` with the singleton state reset first."""
    from accelerate import Accelerator
    from accelerate.state import AcceleratorState, GradientState
    AcceleratorState._reset_state(True)
    GradientState._reset_state()
    return Accelerator(cpu=True, **kwargs)


def digits_split(seed=0):
    """(x_train, y_train, x_held, y_held): a seeded split of the digits."""
    x, y = classification()
    order = torch.from_numpy(np.random.default_rng(seed).permutation(len(x)))
    train, held = order[HELD_OUT:], order[:HELD_OUT]
    return x[train], y[train], x[held], y[held]


def loader(x, y, batch_size, seed=0):
    """A shuffled loader of micro-batches (last partial one dropped), its own generator,
    seeded from the seed ``torch.manual_seed`` was last given (plus ``seed``)."""
    generator = torch.Generator().manual_seed(torch.initial_seed() + seed)
    return DataLoader(TensorDataset(x, y), batch_size=batch_size, shuffle=True,
                      drop_last=True, generator=generator)


def micro_batches(prepared_loader, count):
    """``count`` micro-batches from the prepared loader, epoch after epoch."""
    done = 0
    while True:
        for batch in prepared_loader:
            yield batch
            done += 1
            if done == count:
                return


@torch.no_grad()
def accuracy(model, x, y):
    model.eval()
    correct = (model(x).argmax(-1) == y).float().mean().item()
    model.train()
    return correct


def digits_mlp(hidden=64):
    return mlp(hidden=hidden)
