"""Pieces the batch-183 federated cases share beyond ``_federated``: the held-out
cross-entropy of a global model, and a split of the digits over clients of very unequal
sizes (one large client holding every class, several small ones holding two classes)."""
import numpy as np
import torch

from benchmarks.real_bugs._common import classification
from benchmarks.real_bugs._federated import HELD_OUT


def held_out_loss(model, x, y):
    """Mean cross-entropy of ``model`` (eval mode) on ``(x, y)``."""
    was = model.training
    model.eval()
    with torch.no_grad():
        loss = torch.nn.functional.cross_entropy(model(x), y).item()
    model.train(was)
    return loss


def unequal_digits(small_clients=4, small_size=60, seed=0):
    """([(x, y) per client], (x_test, y_test)): the digits shuffled, 400 held out; each of
    ``small_clients`` small clients gets ``small_size`` digits of two classes of its own
    (classes 2k and 2k + 1), and client 0, listed first, every remaining digit (all classes,
    about six times the small clients' data together)."""
    x, y = classification()
    rng = np.random.default_rng(seed)
    order = torch.from_numpy(rng.permutation(len(x)))
    x, y = x[order], y[order]
    test = x[:HELD_OUT], y[:HELD_OUT]
    x, y = x[HELD_OUT:], y[HELD_OUT:]
    taken = torch.zeros(len(x), dtype=torch.bool)
    small = []
    for k in range(small_clients):
        pool = torch.nonzero(((y == 2 * k) | (y == 2 * k + 1)) & ~taken).flatten()
        index = pool[:small_size]
        taken[index] = True
        small.append((x[index], y[index]))
    return [(x[~taken], y[~taken])] + small, test
