"""Division by a zero standard deviation inside the model turns everything into NaN."""
import torch
from torch import nn

import nndebug as nd
from nndebug.zoo.common import batches, digits

NAME = "torch/nan-loss-division"
FRAMEWORK = "torch"
EXPECTED = "NAN_LOSS"
DESCRIPTION = ("The model standardises each batch itself, dividing by the per-pixel standard "
               "deviation. Border pixels are blank in every image, their std is 0, and 0 / 0 "
               "is NaN: the loss is NaN from the first step although the data is clean.")
FIX = "Add an epsilon to the denominator ((x - mean) / (std + 1e-5)), or use nn.BatchNorm1d."
STEPS = 30


class Standardize(nn.Module):
    def forward(self, x):
        return (x - x.mean(0)) / x.std(0)   # BUG: std is 0 for pixels that never vary


def run(steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = digits()
    model = nn.Sequential(Standardize(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
