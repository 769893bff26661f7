"""A hand-written step decay whose exponent has the wrong sign: ``lr * gamma ** -(epoch //
n_steps)`` with gamma=0.1 multiplies the learning rate by ten at every milestone instead
of dividing it, so a run that trains well at first blows up after the first milestone.

Reported: "a problem with the default learning configuration" -
https://github.com/SYSU-SAIL/PAM/issues/4 ("lr = cfg.lr * (cfg.gamma ** -(epoch //
cfg.n_steps)); cfg.gamma = 0.1, so the lr might become larger during training?"; the
author: "this bug has been fixed"). Here a digits MLP with SGD and momentum at lr=0.05,
the rate set by hand in each param group every "epoch" of 40 steps, a milestone every 2
epochs. Fix: ``gamma ** (epoch // n_steps)``.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "a problem with the default learning configuration"
LINK = "https://github.com/SYSU-SAIL/PAM/issues/4"
EXPECTED = ("LR_GROWS_DURING_TRAINING",)
STEPS = 200
EPOCH = 40          # steps per "epoch"
N_STEPS = 2         # epochs between milestones
GAMMA = 0.1
BASE_LR = 0.05


def learning_rate(epoch, fixed):
    exponent = epoch // N_STEPS if fixed else -(epoch // N_STEPS)   # BUG: the minus sign
    return BASE_LR * GAMMA ** exponent


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=BASE_LR, momentum=0.9)
    loss_fn = torch.nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for step, (xb, yb) in enumerate(batches(x, y, steps)):
            if step % EPOCH == 0:
                for group in optimizer.param_groups:
                    group["lr"] = learning_rate(step // EPOCH, fixed)
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
