"""An L1 penalty added by hand with a negative strength (lambda_l1 = -0.01): the "penalty"
rewards large weights, so every step pushes every weight away from zero by a constant
amount; the training loss keeps falling (the reward term is unbounded below) while the
classifier's held-out loss climbs.

Reported: "L1 regularization Kaggle example, but it works" (title from the thread's
address) - https://discuss.pytorch.org/t/l1-regularization-kaggle-example-but-it-works/205470
(an L1 term with a negative lambda; a reply adapts an MNIST example with
lambda_l1 = -0.01 and l1_norm = sum(p.abs().sum() for p in model.parameters()) "just to
double check" and sees the training loss shoot down and the validation loss shoot up).
Here an MLP (64 -> 128 -> 64 -> 10) on the 8x8 digits, SGD with momentum 0.9 and lr 0.05
(the reply's 10 MNIST epochs at lr 0.01 are thousands of steps; 400 steps need a larger
rate to show the same drift), batches of 64, lambda_l1 = -0.01 on the summed absolute
values of every parameter. Fix: a positive strength, lambda_l1 = 1e-4 (+0.01 itself
drives this small network to chance).

Measured (on 500 held-out digits, eval mode: cross-entropy and accuracy): seed 0: loss
1.79 for the bug against 0.068 for the fixed twin (accuracy 0.866 against 0.976);
seeds + 1000: loss 16.7 against 0.125 (accuracy 0.918 against 0.952).
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._regularisation_beginner import accuracy, digits

TITLE = "L1 regularization Kaggle example, but it works"
LINK = "https://discuss.pytorch.org/t/l1-regularization-kaggle-example-but-it-works/205470"
EXPECTED = ("WEIGHT_DECAY_SIGN_INVERTED", "LOSS_UNBOUNDED_BELOW")
STEPS = 400
LAMBDA_L1 = -0.01
LR = 0.05
FIXED_LAMBDA = 1e-4


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, xh, yh = digits()
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 64), nn.ReLU(),
                          nn.Linear(64, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=LR, momentum=0.9)
    criterion = nn.CrossEntropyLoss()
    lambda_l1 = FIXED_LAMBDA if fixed else LAMBDA_L1    # BUG when not fixed: negative
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = criterion(model(xb), yb)
            l1_norm = sum(p.abs().sum() for p in model.parameters())
            loss = loss + lambda_l1 * l1_norm
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        mon.held_out_loss = round(criterion(model(xh), yh).item(), 3)
    model.train()
    mon.held_out_accuracy = accuracy(model, xh, yh)
    return mon
