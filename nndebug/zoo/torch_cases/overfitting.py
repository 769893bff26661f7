"""A big network, a tiny training set and no regularisation: it memorises."""
import torch
from torch import nn

import nndebug as nd
from nndebug.zoo.common import batches, digits, to_framework

NAME = "torch/overfitting"
FRAMEWORK = "torch"
EXPECTED = "OVERFITTING"
DESCRIPTION = ("Only 64 training images for a 256-wide network trained with Adam: the "
               "training loss goes to ~0 while the validation loss, after a first dip, climbs.")
FIX = "Stop at the best validation loss, add data/augmentation, weight decay or dropout."
STEPS = 300


def run(steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_val, y_val = digits(val=True)
    x, y = x[:64], y[:64]   # BUG: far too little data for this model, no regularisation
    x_val, y_val = to_framework("torch", x_val, y_val)
    model = nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(),
                          nn.Linear(256, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for step, (xb, yb) in enumerate(batches(x, y, steps, batch_size=16)):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            val_loss = None
            if step % 10 == 0:
                with torch.no_grad():
                    val_loss = loss_fn(model(x_val), y_val)
            mon.step(loss, val_loss=val_loss)
    return mon
