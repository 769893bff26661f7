"""Training restarted from a checkpoint to go on at a lower learning rate: the new rate is
given to the optimizer's constructor, then ``optimizer.load_state_dict`` puts back the
checkpoint's parameter groups - and the rate they were saved with. The run goes on at the
old rate; the log (printing the configured rate) says otherwise.

Reported: "Unable to change the learning rate when restarting from a previous checkpoint." -
https://github.com/OpenNMT/OpenNMT-py/issues/1911 ("I kept the learning_rate as 0.001 and am
using adam optimizer. I trained my model till 6000 steps. Now I need to reduce the learning
rate ... learning_rate: 0.00001. But when I restarted the training from checkpoint ... the
learning rate is still 0.001"). Here a digits MLP trained 150 steps by Adam at 2e-2 (the
first job, its checkpoint written to memory as ``torch.save`` writes a file), then restarted
for 150 more steps meant to run at 2e-4. Measured on 500 held-out digits after the second
job: loss 0.32, accuracy 91.4% when it ran on at 2e-2, against loss 0.26 and 93.4% at 2e-4.
Fix: set the new rate after loading (``for g in optimizer.param_groups: g["lr"] = lr``),
or leave the optimizer's state out of the restart.

How watch finds it: the loss curve of the restarted job is a plain, somewhat noisy one. When
watching starts the optimizer already holds Adam's moments (restored), every group trains
at 2e-2 where its constructor was given 2e-4, no scheduler drives it and the rate never
changes during the run: the rate came back with the loaded state
(LR_OVERRIDDEN_BY_CHECKPOINT).
"""
import io

import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "Unable to change the learning rate when restarting from a previous checkpoint."
LINK = "https://github.com/OpenNMT/OpenNMT-py/issues/1911"
EXPECTED = ("LR_OVERRIDDEN_BY_CHECKPOINT",)
STEPS = 150
FIRST_LR = 2e-2       # the rate of the first job, saved in the optimizer's checkpoint
NEW_LR = 2e-4         # the rate the restarted job is configured with
HELD_OUT = 500


def first_job(x, y):
    """The checkpoint the restart reads: model and optimizer after 150 steps at FIRST_LR."""
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=FIRST_LR)
    for xb, yb in batches(x, y, 150, seed=1):
        optimizer.zero_grad()
        nn.functional.cross_entropy(model(xb), yb).backward()
        optimizer.step()
    buffer = io.BytesIO()
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict()}, buffer)
    return buffer.getvalue()


def train(fixed=False, steps=STEPS, **watch):
    """The monitor and the model after the restarted job."""
    torch.manual_seed(0)
    x, y = classification()
    x, y = x[:-HELD_OUT], y[:-HELD_OUT]
    checkpoint = torch.load(io.BytesIO(first_job(x, y)))
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=NEW_LR)
    model.load_state_dict(checkpoint["model"])
    optimizer.load_state_dict(checkpoint["optimizer"])   # BUG: brings back lr = FIRST_LR
    if fixed:
        for group in optimizer.param_groups:
            group["lr"] = NEW_LR
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon, model


def evaluate(model):
    x, y = classification()
    with torch.no_grad():
        out = model(x[-HELD_OUT:])
    loss = nn.functional.cross_entropy(out, y[-HELD_OUT:]).item()
    accuracy = (out.argmax(1) == y[-HELD_OUT:]).float().mean().item()
    return "held-out loss %.3f accuracy %.4f" % (loss, accuracy)


def run(fixed=False, steps=STEPS, **watch):
    return train(fixed, steps, **watch)[0]
