"""What the batch-156 cases (continual, incremental and staged fine-tuning) share: the 8x8
digits split into an old task (digits 0-4) and a new one (digits 5-9), the last 500 digits
held out for scoring, and a small backbone + head MLP. Each case keeps its own loop and its
bug."""
import torch
import torch.nn.functional as F
from torch import nn

from benchmarks.real_bugs._common import batches, classification

HELD_OUT = 500            # the last digits: never trained on, every task is scored there
OLD_CLASSES, NEW_CLASSES = (0, 1, 2, 3, 4), (5, 6, 7, 8, 9)


def splits():
    """(x_train, y_train, x_held, y_held): the digits as (N, 64) in [0, 1], int64 labels."""
    x, y = classification()
    return x[:-HELD_OUT], y[:-HELD_OUT], x[-HELD_OUT:], y[-HELD_OUT:]


def rows_of(y, classes):
    """Boolean mask of the rows whose label is one of ``classes``."""
    return torch.isin(y, torch.tensor(classes))


class Net(nn.Module):
    """A one-hidden-layer backbone and a linear head (the head can be swapped or grown)."""

    def __init__(self, hidden=64, outputs=5):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(64, hidden), nn.ReLU())
        self.head = nn.Linear(hidden, outputs)

    def forward(self, x):
        return self.head(self.backbone(x))


def pretrain(model, x, y, steps, lr=3e-3, seed=0):
    """Plain Adam training of every parameter of ``model`` (before any watching starts)."""
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    for xb, yb in batches(x, y, steps, seed=seed):
        optimizer.zero_grad()
        F.cross_entropy(model(xb), yb).backward()
        optimizer.step()
    return model


def grown_head(head, outputs):
    """A wider linear head whose first rows are a copy of ``head``'s (new rows fresh)."""
    wider = nn.Linear(head.in_features, outputs)
    with torch.no_grad():
        wider.weight[:head.out_features] = head.weight
        wider.bias[:head.out_features] = head.bias
    return wider


@torch.no_grad()
def accuracy(model, x, y, columns=None, offset=0):
    """Held-out accuracy; ``columns``: argmax over those logit columns only (task-aware
    scoring), the predicted column plus ``offset`` compared with the label."""
    logits = model(x)
    if columns is not None:
        logits = logits[:, list(columns)]
    return round((logits.argmax(1) + offset == y).float().mean().item(), 3)


# class-incremental replay: five tasks of two digits each, one ten-way head
TASKS = ((0, 1), (2, 3), (4, 5), (6, 7), (8, 9))
STEPS_PER_TASK = 300
PER_CLASS = 20            # exemplars kept per seen class


def exemplars(y, classes, per_class=None):
    """Row indices of ``per_class`` random rows of each class in ``classes`` (every row
    of each, shuffled, when None); torch's global generator draws them."""
    picked = []
    for c in classes:
        rows = torch.nonzero(y == c).flatten()
        picked.append(rows[torch.randperm(len(rows))[:per_class]])
    return torch.cat(picked)


def task_batches(rows, steps, batch_size=32):
    """``steps`` batches of row indices drawn from ``rows``, reshuffled every pass by
    torch's global generator."""
    done = 0
    while True:
        order = rows[torch.randperm(len(rows))]
        for start in range(0, len(order) - batch_size + 1, batch_size):
            yield order[start:start + batch_size]
            done += 1
            if done == steps:
                return
