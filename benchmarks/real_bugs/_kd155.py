"""Pieces the batch-155 distillation cases share: a teacher trained first on every training
row of the digits, and a student that has only a few labelled rows of its own plus the
teacher's outputs on all the training rows (the unlabelled transfer set) - the
semi-supervised distillation the reports' code does (a teacher from an earlier stage
supervising a student on target images)."""
import torch
import torch.nn.functional as F
from torch import nn

from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._distillation import accuracy, digits_split, trained_teacher

LABELLED = 2                 # labelled training rows per class the student sees


def labelled_rows(y, per_class=LABELLED):
    """Indices of the first ``per_class`` training rows of each digit."""
    return torch.cat([torch.nonzero(y == c).flatten()[:per_class] for c in range(10)])


def setting():
    """(x_train, y_train, x_test, y_test, teacher, labelled indices)."""
    x, y, x_test, y_test = digits_split()
    teacher = trained_teacher(x, y)
    return x, y, x_test, y_test, teacher, labelled_rows(y)


class Student(nn.Module):
    """A narrow MLP; ``features`` is its hidden layer (the one a feature loss reads)."""

    def __init__(self, hidden=32):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(64, hidden), nn.ReLU())
        self.head = nn.Linear(hidden, 10)

    def features(self, x):
        return self.body(x)

    def forward(self, x):
        return self.head(self.body(x))


def transfer_batches(n, steps, batch_size=64):
    return index_batches(n, steps, batch_size, seed=2)


__all__ = ["F", "accuracy", "labelled_rows", "setting", "Student", "transfer_batches"]
