"""EvolveGCN-O: an LSTM evolves the graph convolution's weight from one snapshot to the
next, and forward() stores the evolved weight back with
``self.conv_weight = nn.Parameter(W)``. Wrapping the LSTM's output in a new Parameter makes
it a fresh leaf: the graph from the loss back into the LSTM is cut (the LSTM gets no
gradient and never learns), the optimizer still holds the first weight (the new leaf that
receives the gradient is in no optimizer), and the weight keeps being pushed through the
untrained LSTM on every call, across batches, until its rows drift together.

Reported: "[Bug?] the way to set GCN.weight in EvolveGCN." -
https://github.com/benedekrozemberczki/pytorch_geometric_temporal/issues/80 ("the gradient
function may be lost in the implementation of EvolveGCN. The reason for this should be ...
self.conv_layer.weight = torch.nn.parameter.Parameter(W)"; the layer was rewritten to pass
the evolved weight to the convolution as a tensor). Here node classification on sequences
of 6 graph snapshots (3 communities of 20 nodes drawn as a stochastic block model, noisy
community features), 4 sequences a batch: one evolving graph convolution (its LSTM's state
carried from snapshot to snapshot in the fixed twin, as in the library's rewrite) and a
linear head.
Measured on 40 fresh sequences (seed 0, 150 steps): 32.4% node accuracy (chance) with the
weight re-wrapped, 70.2% with the evolved weight passed as a tensor.
Fix: keep the initial weight as the Parameter and pass the evolved weight (a tensor with
its graph) to the convolution.
"""
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd

TITLE = "[Bug?] the way to set GCN.weight in EvolveGCN."
LINK = "https://github.com/benedekrozemberczki/pytorch_geometric_temporal/issues/80"
EXPECTED = ("OPTIMIZER_MISSING_PARAMS", "UNREGISTERED_PARAMETERS", "NO_GRADIENT")
STEPS = 150
NODES = 60
COMMUNITIES = 3
FEATURES = 8
SNAPSHOTS = 6
SEQUENCES = 4


def snapshot_sequence(generator):
    """(adjacencies (T, N, N) normalised with self-loops, features (T, N, F), labels (N,))."""
    labels = torch.arange(NODES) % COMMUNITIES
    same = labels[:, None] == labels[None, :]
    adjacencies, features = [], []
    for _ in range(SNAPSHOTS):
        p = torch.where(same, torch.tensor(0.25), torch.tensor(0.03))
        upper = torch.triu(torch.rand(NODES, NODES, generator=generator) < p, 1).float()
        a = upper + upper.T + torch.eye(NODES)
        d = a.sum(1).rsqrt()
        adjacencies.append(d[:, None] * a * d[None, :])
        signal = F.one_hot(labels, FEATURES).float()
        features.append(signal + 1.5 * torch.randn(NODES, FEATURES, generator=generator))
    return torch.stack(adjacencies), torch.stack(features), labels


def sequence_batch(generator, sequences=SEQUENCES):
    """A mini-batch of independent sequences: (B, T, N, N), (B, T, N, F), labels (B, T, N)."""
    drawn = [snapshot_sequence(generator) for _ in range(sequences)]
    labels = torch.stack([l.expand(SNAPSHOTS, NODES) for _, _, l in drawn])
    return torch.stack([a for a, _, _ in drawn]), torch.stack([x for _, x, _ in drawn]), labels


class EvolveGCNO(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.fixed = fixed
        self.conv_weight = nn.Parameter(torch.randn(FEATURES, FEATURES) / FEATURES ** 0.5)
        self.recurrent = nn.LSTM(FEATURES, FEATURES)
        self.head = nn.Linear(FEATURES, COMMUNITIES)

    def forward(self, adjacencies, features):
        """adjacencies (B, T, N, N), features (B, T, N, F): B sequences of T snapshots."""
        outputs = []
        weight, state = self.conv_weight, None
        for t in range(adjacencies.shape[1]):
            if self.fixed:       # the weight is the LSTM's input, its state carried in time
                evolved, state = self.recurrent(weight[None], state)
                weight = evolved[0]
                used = weight
            else:
                evolved = self.recurrent(self.conv_weight[None])[0][0]
                self.conv_weight = nn.Parameter(evolved)          # BUG: a fresh leaf
                used = self.conv_weight
            mixed = adjacencies[:, t] @ features[:, t] @ used
            outputs.append(self.head(torch.relu(mixed)))
        return torch.stack(outputs, dim=1)


def train(fixed=False, steps=STEPS, **watch):
    """The monitor and the trained model."""
    torch.manual_seed(0)
    graphs = torch.Generator().manual_seed(0)
    model = EvolveGCNO(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            adjacencies, features, labels = sequence_batch(graphs)
            optimizer.zero_grad()
            logits = model(adjacencies, features)
            loss = F.cross_entropy(logits.reshape(-1, COMMUNITIES), labels.reshape(-1))
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon, model


def run(fixed=False, steps=STEPS, **watch):
    return train(fixed, steps, **watch)[0]


def held_out_accuracy(fixed):
    _, model = train(fixed)
    graphs = torch.Generator().manual_seed(12345)
    right = total = 0
    with torch.no_grad():
        for _ in range(10):
            adjacencies, features, labels = sequence_batch(graphs)
            predicted = model(adjacencies, features).argmax(-1)
            right += (predicted == labels).sum().item()
            total += predicted.numel()
    return right / total


if __name__ == "__main__":
    for fixed in (False, True):
        print("fixed" if fixed else "bug", held_out_accuracy(fixed))
