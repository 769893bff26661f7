"""A linear learning-rate decay (LambdaLR, 1 - epoch / epochs) stepped at the top of each
epoch, before that epoch's optimizer steps - the order PyTorch used before 1.1. The first
epoch already trains at 4/5 of the rate, each later one a fifth lower, and the last epoch
runs at a rate of exactly 0: a fifth of the updates move nothing and the rest are smaller
than planned. The loss still falls for four epochs and then flattens, which reads as
convergence.

Reported: "I see scheduler.step() is being invoked right before the for loop in the train
function or before training for one epoch" - https://github.com/liuzechun/ReActNet/issues/32
("Shouldn't it be right after the for loop is finished?"; the script's LambdaLR is
1.0 - step / epochs, stepped once per epoch by train() before its batch loop). Here the same
loop on the 8x8 digits with a short run (an MLP 64 -> 64 -> 10, batches of 32 from a
shuffled DataLoader, Adam 1e-3, 5 epochs).
Fix: scheduler.step() after the epoch's batch loop (the epochs train at 1, 4/5, ..., 1/5 of
the rate).

Measured (held-out accuracy, the last 360 digits): 0.769 with the bug, 0.819 fixed;
seeds + 1000: 0.747 vs 0.808.
"""
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._keras_ports import accuracy, digits_split

TITLE = ("I see scheduler.step() is being invoked right before the for loop in the train "
         "function or before training for one epoch")
LINK = "https://github.com/liuzechun/ReActNet/issues/32"
EXPECTED = ("LR_AT_ZERO",)
STEPS = 225              # 5 epochs of 45 batches


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_test, y_test = digits_split()
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=32,
                                         shuffle=True)
    epochs = max(1, steps // len(loader))
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda epoch: 1.0 - epoch / epochs)
    with nd.watch(model, optimizer, **watch) as mon:
        for epoch in range(epochs):
            if not fixed:
                scheduler.step()                  # BUG: before the epoch's updates
            for xb, yb in loader:
                optimizer.zero_grad()
                loss = F.cross_entropy(model(xb), yb)
                loss.backward()
                optimizer.step()
                mon.step(loss)
            if fixed:
                scheduler.step()
    mon.held_out_accuracy = accuracy(model, x_test, y_test)
    return mon
