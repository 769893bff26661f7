"""What the two EWC cases (batch 110) share: permuted-digits continual learning. Task 1 is
the digits as they are, task 2 the same digits with their 64 pixels permuted; a small MLP
is trained on task 1 before watching starts, and its weights are saved for the penalty that
should hold them while task 2 trains. Each case keeps its own penalty and its bug."""
import torch
import torch.nn.functional as F
from torch import nn

from benchmarks.real_bugs._common import batches, classification

FIRST_TASK_STEPS = 300
HELD_OUT = 500            # the last digits, never trained on: both tasks are scored there


def after_first_task():
    """(x_train, y_train, permutation, model, optimizer, saved weights) once task 1 has
    trained (Adam 3e-3; the caller seeds torch first)."""
    x, y = classification()
    x_train, y_train = x[:-HELD_OUT], y[:-HELD_OUT]
    permutation = torch.randperm(64, generator=torch.Generator().manual_seed(1))
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    for xb, yb in batches(x_train, y_train, FIRST_TASK_STEPS, seed=0):
        optimizer.zero_grad()
        F.cross_entropy(model(xb), yb).backward()
        optimizer.step()
    saved = [p.detach().clone() for p in model.parameters()]
    return x_train, y_train, permutation, model, optimizer, saved


def second_task_batches(x_train, y_train, permutation, steps):
    """Task 2's batches: the training digits with their pixels permuted."""
    return batches(x_train[:, permutation], y_train, steps, seed=1)


def held_out_accuracies(model, permutation):
    """(task-1 accuracy, task-2 accuracy) on the held-out digits."""
    x, y = classification()
    x, y = x[-HELD_OUT:], y[-HELD_OUT:]
    with torch.no_grad():
        first = (model(x).argmax(1) == y).float().mean().item()
        second = (model(x[:, permutation]).argmax(1) == y).float().mean().item()
    return first, second
