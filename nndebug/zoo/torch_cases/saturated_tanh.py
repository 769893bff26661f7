"""tanh units pinned at +-1 by weights that are far too large."""
import torch
from torch import nn

import nndebug as nd
from nndebug.zoo.common import batches, digits

NAME = "torch/saturated-tanh"
FRAMEWORK = "torch"
EXPECTED = "SATURATED_ACTIVATIONS"
DESCRIPTION = ("The tanh layers are initialised with weights 10x too large: almost every unit "
               "sits at +-1 where tanh is flat, so almost no gradient passes and the loss "
               "hardly moves.")
FIX = "Use Glorot/Xavier initialisation for tanh layers (nn.init.xavier_uniform_)."
STEPS = 120


def run(steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = digits()
    model = nn.Sequential(nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh(),
                          nn.Linear(64, 10))
    with torch.no_grad():
        for layer in (model[0], model[2]):
            layer.weight.mul_(10.0)   # BUG: weights 10x too large saturate every tanh
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
