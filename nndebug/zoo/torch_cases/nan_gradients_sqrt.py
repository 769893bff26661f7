"""sqrt(0) in a pairwise-distance term: the loss is finite, its gradient is NaN."""
import torch
from torch import nn

import nndebug as nd
from nndebug.zoo.common import batches, digits

NAME = "torch/nan-gradients-sqrt"
FRAMEWORK = "torch"
EXPECTED = "NAN_GRADIENTS"
DESCRIPTION = ("A regulariser spreads the embeddings apart using all pairwise distances "
               "sqrt(sum((e_i - e_j)^2)), the diagonal included. There the distance is 0: its "
               "value is harmless, but d sqrt(u)/du is infinite and inf * 0 = NaN, so the "
               "first backward poisons the weights while the loss looked fine.")
FIX = ("Leave out the diagonal, or add an epsilon: torch.sqrt(d2 + 1e-12) "
       "(torch.cdist/torch.pdist handle the zero distance).")
STEPS = 40


class Net(nn.Module):
    """Returns (logits, embedding): models with tuple outputs are watched like any other."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 16))
        self.head = nn.Linear(16, 10)

    def forward(self, x):
        e = self.embed(x)
        return self.head(e), e


def pairwise_distances(e):
    diff = e[:, None, :] - e[None, :, :]
    return torch.sqrt((diff ** 2).sum(-1))   # BUG: sqrt(0) on the diagonal -> NaN gradient


def run(steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = digits()
    model = Net()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            logits, embedding = model(xb)
            loss = loss_fn(logits, yb) - 0.01 * pairwise_distances(embedding).mean()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
