"""Resuming a run from a checkpoint written by an nn.DataParallel model: every key of the
saved state_dict starts with 'module.', the resumed script builds the plain model on one
device, load_state_dict raises "Unexpected key(s)", and the user silences it with
strict=False. No key matches, so no weight is loaded: the model restarts from its random
initialisation while the optimizer's state (Adam's moments and step count from the first
run) and the epoch counter are restored, and the run trains only its remaining steps.

Reported: "Loading a saved model" - https://github.com/nayeemrizve/OpenLDN/issues/5 ("the
expected state_dict had module as a prefix ... I modified the loading code ... by adding
strict=False"). Here an MLP (64 -> 128 -> 128 -> 10) on the 8x8 digits, Adam 1e-3, batches
of 32: a first run of 300 steps inside nn.DataParallel saves {'state_dict', 'optimizer'};
the resumed run (the watched one) builds the plain model, loads both and trains the last
STEPS steps. Fix: strip the 'module.' prefix from the keys and load with strict=True.

Measured (held-out accuracy on 500 digits after the resumed run): seed 0: 0.864 with the
bug, 0.968 fixed; seeds + 1000: 0.922 vs 0.958.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._reg169 import accuracy, split

TITLE = "Loading a saved model"
LINK = "https://github.com/nayeemrizve/OpenLDN/issues/5"
EXPECTED = ("PRETRAINED_WEIGHTS_NOT_LOADED", "OPTIMIZER_STATE_FROM_EARLIER_RUN")
STEPS = 100
FIRST_RUN_STEPS = 300


def net():
    return nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(),
                         nn.Linear(128, 10))


def first_run(x, y):
    """The earlier run on the multi-GPU machine: the model wrapped in nn.DataParallel (on a
    machine without GPUs it simply calls the module), its checkpoint saved as is."""
    model = nn.DataParallel(net())
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    for xb, yb in batches(x, y, FIRST_RUN_STEPS, batch_size=32, seed=0):
        optimizer.zero_grad()
        loss_fn(model(xb), yb).backward()
        optimizer.step()
    return {"state_dict": model.state_dict(), "optimizer": optimizer.state_dict()}


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, xh, yh = split()
    checkpoint = first_run(x, y)

    torch.manual_seed(1)                       # the resumed script, on one device
    model = net()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    if fixed:
        state = {k[len("module."):] if k.startswith("module.") else k: v
                 for k, v in checkpoint["state_dict"].items()}
        model.load_state_dict(state)
    else:                                      # BUG: no key matches, nothing is loaded
        model.load_state_dict(checkpoint["state_dict"], strict=False)
    optimizer.load_state_dict(checkpoint["optimizer"])
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps, batch_size=32, seed=1):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, xh, yh)
    return mon
