"""A .detach() in the forward pass cuts the first layer off from the loss."""
import torch
from torch import nn

import nndebug as nd
from nndebug.zoo.common import batches, digits

NAME = "torch/detached-graph"
FRAMEWORK = "torch"
EXPECTED = "NO_GRADIENT"
DESCRIPTION = ("The forward pass detaches an intermediate result (here to 'log' it as NumPy and "
               "back): everything before that point gets no gradient and never learns.")
FIX = "Keep the forward pass in tensor operations; log a detached copy, but keep using the original."
STEPS = 80


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(64, 64), nn.ReLU())
        self.head = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))

    def forward(self, x):
        h = self.encoder(x)
        h = torch.from_numpy(h.detach().numpy())   # BUG: the graph is cut here
        return self.head(h)


def run(steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = digits()
    model = Net()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
