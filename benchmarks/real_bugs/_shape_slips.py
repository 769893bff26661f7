"""What the beginner tensor-shape cases of real-bug batch 250 share: the 8x8 digits split
into a training and a held-out part by torch's global generator (so the benchmark's seed
shift moves the split), a small conv net, and the held-out metric each case's docstring
reports (kept in ``LAST`` by the case's ``run``, read by the measuring script)."""
import torch
from torch import nn

from benchmarks.real_bugs._common import classification

LAST = {}   # the last run's held-out metric, {"metric": name, "value": float}


def record(name, value):
    LAST.clear()
    LAST.update(metric=name, value=float(value))


def split(images=False, held_out=400):
    """The digits in [0, 1], shuffled: (x_train, y_train, x_test, y_test)."""
    x, y = classification(images=images)
    order = torch.randperm(len(x))
    x, y = x[order], y[order]
    return x[:-held_out], y[:-held_out], x[-held_out:], y[-held_out:]


def minibatches(n, steps, batch_size=64):
    """``steps`` batches of shuffled row indices into ``n`` rows (torch's global generator),
    reshuffled every epoch."""
    done = 0
    while True:
        order = torch.randperm(n)
        for start in range(0, n - batch_size + 1, batch_size):
            yield order[start:start + batch_size]
            done += 1
            if done == steps:
                return


def small_convnet(channels=1, outputs=10):
    return nn.Sequential(nn.Conv2d(channels, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(32 * 2 * 2, 64), nn.ReLU(),
                         nn.Linear(64, outputs))


def accuracy(model, x, y):
    model.eval()
    with torch.no_grad():
        correct = (model(x).argmax(1) == y).float().mean().item()
    model.train()
    return correct
