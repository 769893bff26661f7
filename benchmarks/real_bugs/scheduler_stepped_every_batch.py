"""A StepLR schedule written in epochs (step_size = epochs // 2, gamma = 0.1) is stepped
after every batch: the learning rate falls tenfold every few batches and training stalls.

Reported: "Learning rate scheduler is working incorrect" -
https://github.com/Lornatang/SRGAN-PyTorch/issues/1 ("they are called at each training
step which means that learning rate is quickly becoming zero after a few training steps.
The SRGAN does not seem to train"; the maintainer: "Yeah, I found it. I will fix it.").
Here a digits MLP trains 6 epochs of 25 batches. Fix: scheduler.step() once per epoch.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "Learning rate scheduler is working incorrect"
LINK = "https://github.com/Lornatang/SRGAN-PyTorch/issues/1"
EXPECTED = ("LR_TOO_LOW",)
STEPS = 150
EPOCHS = 6
EPOCH = STEPS // EPOCHS      # batches per epoch


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=EPOCHS // 2, gamma=0.1)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for i, (xb, yb) in enumerate(batches(x, y, steps)):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            if not fixed or (i + 1) % EPOCH == 0:
                scheduler.step()             # BUG: every batch, not every epoch
            mon.step(loss)
    return mon
