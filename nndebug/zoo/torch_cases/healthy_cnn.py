"""Healthy: a small CNN on the 8x8 digit images with SGD + momentum."""
import torch
from torch import nn

import nndebug as nd
from nndebug.zoo.common import batches, digits

NAME = "torch/healthy-cnn"
FRAMEWORK = "torch"
EXPECTED = None
DESCRIPTION = "Two conv/ReLU/max-pool stages and a linear classifier, trained with SGD + momentum."
FIX = "Nothing to fix."
STEPS = 150


def run(steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = digits(images=True)
    model = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Flatten(), nn.Linear(64, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
