"""A transductive node classifier whose training loss is taken over EVERY node's label, the
test nodes' included: the train mask is built, and used for the accuracy, but never applied
to the loss. The test nodes are in the graph anyway (their features are meant to be seen);
their labels are not. The model fits them like any other training node, and the test
accuracy then reports memorised labels: it reads far better than the model is, and every
choice made on it (the best epoch, the hyperparameters) leans on labels it trained on.

Reported: "fix: mask-out test labels during gradient updates in training loop" -
https://github.com/awslabs/realtime-fraud-detection-with-gnn-on-dgl/pull/728 (a fix "for
bug in training loop that 'leaked' test labels during training. The fix is to mask test
labels during gradient updates"; merged). The same question on another fraud-detection GNN:
https://github.com/waittim/graph-fraud-detection/issues/3 ("it seems to use the test_mask
label for calculate loss"; the author: "Loss should only be computed on the training ...
mask, not test_mask ... that's a bug"). Here a two-layer GCN labels the nodes of a graph of
noisy digit images, 30% of the nodes meant for training. Fix: ``loss =
cross_entropy(logits[train_mask], y[train_mask])``.

Harm (200 steps): the test accuracy reads 1.00 on the leaked labels; the fixed twin, trained
on the training nodes only, scores 0.76 on the same test nodes - the leak hides a fifth of
the errors.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import classification

TITLE = "fix: mask-out test labels during gradient updates in training loop"
LINK = "https://github.com/awslabs/realtime-fraud-detection-with-gnn-on-dgl/pull/728"
EXPECTED = ("TEST_LABELS_IN_TRAINING_LOSS",)
STEPS = 200
NODES = 800
NOISE = 1.2                  # std of the noise on each node's own image
EDGES_PER_NODE = 3
SAME_CLASS = 0.6             # share of a node's edges that join nodes of the same digit


def digit_graph(generator):
    """Noisy node images, labels and D^-1/2 (A + I) D^-1/2 (dense)."""
    x, y = classification()
    x, y = x[:NODES], y[:NODES]
    x = x + NOISE * torch.randn(NODES, 64, generator=generator)
    members = [torch.nonzero(y == c).squeeze(1) for c in range(10)]
    adjacency = torch.eye(NODES)
    for node in range(NODES):
        for _ in range(EDGES_PER_NODE):
            pool = members[y[node]] if torch.rand(1, generator=generator) < SAME_CLASS \
                else torch.arange(NODES)
            other = pool[torch.randint(0, len(pool), (1,), generator=generator)].item()
            adjacency[node, other] = adjacency[other, node] = 1.0
    scale = adjacency.sum(1).rsqrt()
    return x, y, scale[:, None] * adjacency * scale[None, :]


class GCN(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer1, self.layer2 = nn.Linear(64, 128), nn.Linear(128, 10)

    def forward(self, x, propagate):
        return self.layer2(propagate @ F.relu(self.layer1(propagate @ x)))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(0)
    x, y, propagate = digit_graph(generator)
    train_mask = torch.rand(NODES, generator=generator) < 0.3
    test_mask = ~train_mask
    model = GCN()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            optimizer.zero_grad()
            logits = model(x, propagate)
            if fixed:
                loss = F.cross_entropy(logits[train_mask], y[train_mask])
            else:
                loss = F.cross_entropy(logits, y)     # BUG: the test nodes' labels too
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        predicted = model(x, propagate).argmax(1)
    mon.accuracy = (predicted[test_mask] == y[test_mask]).float().mean().item()
    return mon
