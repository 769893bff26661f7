"""Pieces the batch-271 cases (gradient accumulation, large effective batches and mixed
precision in first training scripts) share: the 8x8 digits split into training and
held-out rows, micro-batches of row indices, held-out accuracy, and the two warm-up
schedules the early BERT example scripts (pytorch-pretrained-BERT) set by hand."""
import math

import numpy as np
import torch

from benchmarks.real_bugs._common import classification, index_batches

TRAIN_ROWS = 1400


def digits_split(seed=0):
    """(x_train, y_train, x_test, y_test): the digits shuffled by ``seed``, the first 1400
    rows to train on, the other 397 held out."""
    x, y = classification()
    order = torch.from_numpy(np.random.default_rng(seed).permutation(len(x)))
    train, test = order[:TRAIN_ROWS], order[TRAIN_ROWS:]
    return x[train], y[train], x[test], y[test]


def micro_batches(optimizer_steps, accumulate, micro_batch, seed=0):
    """An iterator of ``optimizer_steps * accumulate`` shuffled index micro-batches of the
    training rows (reshuffled every epoch)."""
    return index_batches(TRAIN_ROWS, optimizer_steps * accumulate, micro_batch, seed)


def accuracy(model, x, y):
    """Share of rows whose arg-max prediction is the label (float32, no autocast)."""
    with torch.no_grad():
        return (model(x).float().argmax(-1) == y).float().mean().item()


def warmup_linear(x, warmup=0.002):
    """pytorch-pretrained-BERT 0.4's schedule multiplier, ``x`` the share of training done:
    a linear ramp over the first ``warmup`` of the run, then 1 - x (clamped at 0 here)."""
    if x < warmup:
        return x / warmup
    return max(1.0 - x, 0.0)


class WarmupLinearSchedule:
    """pytorch-pretrained-BERT 0.6's ``WarmupLinearSchedule``: ``get_lr(step)`` takes the
    optimizer step and divides it by ``t_total`` itself."""

    def __init__(self, warmup=0.002, t_total=-1):
        self.warmup, self.t_total = warmup, t_total

    def get_lr(self, step):
        progress = step / self.t_total
        if progress < self.warmup:
            return progress / self.warmup
        return max((progress - 1.0) / (self.warmup - 1.0), 0.0)


def cosine(progress):
    """Half-cosine multiplier from 1 at ``progress`` 0 to 0 at 1 (held at 0 past 1)."""
    return 0.5 * (1.0 + math.cos(math.pi * min(progress, 1.0)))
