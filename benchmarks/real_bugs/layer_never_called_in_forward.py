"""A prototypical network whose fully-connected layer is built in ``__init__`` but never
called in ``forward``: the support and query features go to the distance computation
straight from the encoder, and the layer's weights sit in the optimizer untouched.

Reported: "Make PrototypicalNetwork actually use its fully-connected layer" -
https://github.com/microsoft/FS-Mol/pull/18 ("in ProtoNets we meticulously design the
fully-connected layer but then never call it. Let's call it then!"). Here each batch of
digits is split into a support half (class prototypes: the mean feature of each class) and
a query half classified by the squared distance to each prototype. The encoder ends in a
ReLU, so without the layer the features live in the positive orthant. On the digits the
loss ends about where the fixed twin's does: the harm is a model other than the one
designed, whose head's weights never train. Fix: pass the encoder's features through the
fully-connected layer.
"""
import numpy as np
import torch
from torch import nn

from benchmarks.real_bugs._common import classification

TITLE = "Make PrototypicalNetwork actually use its fully-connected layer"
LINK = "https://github.com/microsoft/FS-Mol/pull/18"
EXPECTED = ("NO_GRADIENT",)
STEPS = 200
PER_CLASS = 5                  # support and query examples of each class in a batch


class PrototypicalNetwork(nn.Module):
    def __init__(self, fixed, hidden=64, features=32):
        super().__init__()
        self.fixed = fixed
        self.encoder = nn.Sequential(nn.Linear(64, hidden), nn.ReLU(),
                                     nn.Linear(hidden, hidden), nn.ReLU())
        self.fc = nn.Linear(hidden, features)

    def features(self, x):
        h = self.encoder(x)
        return self.fc(h) if self.fixed else h   # BUG (fixed=False): self.fc never called

    def forward(self, support, support_labels, query):
        s, q = self.features(support), self.features(query)
        prototypes = torch.stack([s[support_labels == c].mean(0) for c in range(10)])
        return -torch.cdist(q, prototypes) ** 2          # (queries, classes): logits


def episodes(x, y, steps, seed=0):
    """``steps`` batches of PER_CLASS support and PER_CLASS query digits of each class."""
    rng = np.random.default_rng(seed)
    by_class = [np.flatnonzero(y.numpy() == c) for c in range(10)]
    for _ in range(steps):
        picks = np.stack([rng.choice(rows, 2 * PER_CLASS, replace=False) for rows in by_class])
        support = torch.from_numpy(picks[:, :PER_CLASS].reshape(-1))
        query = torch.from_numpy(picks[:, PER_CLASS:].reshape(-1))
        yield x[support], y[support], x[query], y[query]


def run(fixed=False, steps=STEPS, **watch):
    import nndebug as nd
    torch.manual_seed(0)
    x, y = classification()
    model = PrototypicalNetwork(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for support, support_labels, query, query_labels in episodes(x, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(support, support_labels, query), query_labels)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
