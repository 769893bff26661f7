"""A .detach() in the forward pass cuts the encoder off from the loss (minigrad)."""
import minigrad as mg
import minigrad.nn as nn
import minigrad.optim as optim

import nndebug as nd
from nndebug.zoo.common import batches, digits

NAME = "minigrad/detached-graph"
FRAMEWORK = "minigrad"
EXPECTED = "NO_GRADIENT"
DESCRIPTION = "The encoder's output is detached: the encoder gets no gradient and never learns."
FIX = "Do not detach tensors the loss depends on; detach only copies you log."
STEPS = 60


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(64, 64), nn.ReLU())
        self.head = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))

    def forward(self, x):
        h = self.encoder(x).detach()   # BUG: the graph is cut here
        return self.head(h)


def run(steps=STEPS, **watch):
    mg.manual_seed(0)
    x, y = digits()
    model = Net()
    optimizer = optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps, framework="minigrad"):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
