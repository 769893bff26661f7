"""What the weight-averaging cases of real-bug batch 211 share: a fixed shuffled 80/20 split of
the digits, a batch-normalised MLP and held-out accuracy / loss of a network in eval mode."""
import torch
import torch.nn.functional as F
from torch import nn

from benchmarks.real_bugs._common import classification


def split():
    """(x_train, y_train, x_val, y_val): a fixed shuffled 80/20 split of the digits."""
    x, y = classification()
    order = torch.randperm(len(x), generator=torch.Generator().manual_seed(0))
    cut = int(0.8 * len(x))
    return x[order[:cut]], y[order[:cut]], x[order[cut:]], y[order[cut:]]


def bn_mlp(hidden=64):
    return nn.Sequential(nn.Linear(64, hidden), nn.BatchNorm1d(hidden), nn.ReLU(),
                         nn.Linear(hidden, hidden), nn.BatchNorm1d(hidden), nn.ReLU(),
                         nn.Linear(hidden, 10))


def evaluate(network, x, y):
    """(loss, accuracy) of ``network`` in eval mode; its mode is restored after."""
    was_training = network.training
    network.eval()
    with torch.no_grad():
        logits = network(x)
    network.train(was_training)
    return F.cross_entropy(logits, y).item(), (logits.argmax(1) == y).float().mean().item()
