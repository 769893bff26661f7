"""Healthy: dropout and batch norm, switching to eval for validation and back to train."""
import torch
from torch import nn

import nndebug as nd
from nndebug.zoo.common import batches, digits, to_framework

NAME = "torch/healthy-dropout-batchnorm"
FRAMEWORK = "torch"
EXPECTED = None
DESCRIPTION = ("BatchNorm, in-place ReLU and dropout; every 10 steps a validation pass in "
               "eval mode under no_grad, then back to train mode. Validation passes must not "
               "be mistaken for training ones.")
FIX = "Nothing to fix."
STEPS = 120


def run(steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_val, y_val = digits(val=True)
    x_val, y_val = to_framework("torch", x_val, y_val)
    model = nn.Sequential(nn.Linear(64, 128), nn.BatchNorm1d(128), nn.ReLU(inplace=True),
                          nn.Dropout(0.2), nn.Linear(128, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for step, (xb, yb) in enumerate(batches(x, y, steps)):
            model.train()
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            val_loss = None
            if step % 10 == 0:
                model.eval()
                with torch.no_grad():
                    val_loss = loss_fn(model(x_val), y_val)
            mon.step(loss, val_loss=val_loss)
    return mon
