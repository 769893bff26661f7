"""A `break` left in the progress block of the batch loop: every time the running loss is
averaged and printed (each 10th batch) the loop also leaves the epoch, so each "epoch" trains
10 of its 45 batches. The loss printed after each block falls, the per-epoch MultiStepLR
still cuts the rate at its epoch milestone, and the run ends with a fifth of the updates it
was meant to make, on a model that is still far from trained.

Reported: "Next epoch starts after 100 iterations." -
https://github.com/avinashpaliwal/Super-SloMo/issues/3 ("This is due to a `break` statement
in the progress update area of `train.ipynb` used during testing of code"). Super-SloMo's
loop: a shuffled DataLoader, Adam, a running loss summed per batch and averaged, printed
and reset every `progress_iter` batches, and MultiStepLR stepped once per epoch. Here the
same loop on the 8x8 digits (an MLP 64 -> 64 -> 10, batches of 32 from a shuffled
DataLoader, Adam 1e-3, 8 epochs, the rate cut 10x at epoch 6, progress every 10 batches).
Fix: no break in the progress block (every batch of every epoch is trained).

Measured (held-out accuracy, the last 360 digits): 0.750 with the bug, 0.861 fixed;
seeds + 1000: 0.722 vs 0.858.
"""
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._keras_ports import accuracy, digits_split

TITLE = "Next epoch starts after 100 iterations."
LINK = "https://github.com/avinashpaliwal/Super-SloMo/issues/3"
EXPECTED = ("LR_TOO_LOW",)
STEPS = 360              # 8 epochs of 45 batches when nothing cuts them short
PROGRESS_ITER = 10


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_test, y_test = digits_split()
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=32,
                                         shuffle=True)
    epochs = max(1, steps // len(loader))
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[6], gamma=0.1)
    printed = []
    with nd.watch(model, optimizer, **watch) as mon:
        for epoch in range(epochs):
            running_loss = 0.0
            for index, (xb, yb) in enumerate(loader):
                optimizer.zero_grad()
                loss = F.cross_entropy(model(xb), yb)
                loss.backward()
                optimizer.step()
                mon.step(loss)
                running_loss += loss.item()
                if index % PROGRESS_ITER == PROGRESS_ITER - 1:
                    printed.append(running_loss / PROGRESS_ITER)   # the printed loss
                    running_loss = 0.0
                    if not fixed:
                        break          # BUG: left over from testing the progress block
            scheduler.step()
    mon.printed_losses = printed
    mon.held_out_accuracy = accuracy(model, x_test, y_test)
    return mon
