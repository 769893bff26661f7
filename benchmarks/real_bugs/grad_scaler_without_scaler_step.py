"""A GradScaler used only to scale the loss: scaler.scale(loss).backward() followed by a
plain optimizer.step(), so the gradients are never unscaled and every step is the scale
(65536 by default) times too large; with SGD that multiplies the learning rate by it.

Reported: "Gradient Scaler in sample" - https://github.com/nerfstudio-project/nerfacc/issues/307
("the sample code uses the GradScaler, but only for scaling the loss and not for the update
step ... the gradients are now 1024x larger than they should be"; the maintainer:
"Effectively what Im doing here is just (loss * 1024).backward()"). Here a digits MLP
trained with SGD on the CPU (torch.amp.GradScaler("cpu")). Fix: scaler.step(optimizer)
and scaler.update() instead of optimizer.step().
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "Gradient Scaler in sample"
LINK = "https://github.com/nerfstudio-project/nerfacc/issues/307"
EXPECTED = ("GRADIENTS_NOT_UNSCALED", "LOSS_SCALED_FOR_BACKWARD")
STEPS = 150


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    scaler = torch.amp.GradScaler("cpu")
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            scaler.scale(loss).backward()
            if fixed:
                scaler.step(optimizer)
                scaler.update()
            else:
                optimizer.step()        # BUG: the scaled gradients are stepped as they are
            mon.step(loss)
    return mon
