"""Resuming from a checkpoint loads the optimizer's state and then builds the optimizer
again over the model's parameters, which throws the loaded state away: every resumed run
starts Adam from zero moments and a step count of one, on a model already trained.

Reported: "Bug in loading optimizer from earlier checkpoint: optimizer constructor erases
state" - https://github.com/OpenNMT/OpenNMT-py/issues/617 ("optim.set_parameters(...) ...
is always called ... this then always creates an entirely new optimizer and erases the
previously loaded optimizer state"; "serious repercussions when running Adam in
particular and (often) restarting it from earlier checkpoints"). Here a digits MLP trained
as a preemptible job: five runs of 30 steps, each one resumed from the checkpoint the one
before saved (model, optimizer and the nndebug monitor's state, as ``long_run.py``
documents), the checkpoint written to memory as ``torch.save`` writes a file. Fix: build the
optimizer once, then load its state.

How watch finds it: each run's loss curve continues the one before with a small bump after
each resume (Adam's first bias-corrected steps), like any noisy curve. On resume the monitor
(``mon.load_state_dict``) watches the optimizer's first step: it held no state before it
(no moments) and holds some after it, so the state was not restored
(OPTIMIZER_STATE_NOT_RESTORED; a plain SGD has no state to lose and is not named).
"""
import io

import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "Bug in loading optimizer from earlier checkpoint: optimizer constructor erases state"
LINK = "https://github.com/OpenNMT/OpenNMT-py/issues/617"
EXPECTED = ("OPTIMIZER_STATE_NOT_RESTORED",)
STEPS = 150
SEGMENT = 30         # steps each run trains before the job is stopped and resumed
LR = 3e-2


def build_optimizer(model):
    return torch.optim.Adam(model.parameters(), lr=LR)


def resume(checkpoint, fixed):
    """A new process: the model and its optimizer, from the checkpoint when there is one."""
    model = mlp()
    optimizer = build_optimizer(model)
    if checkpoint is not None:
        model.load_state_dict(checkpoint["model"])
        optimizer.load_state_dict(checkpoint["optimizer"])
        if not fixed:
            optimizer = build_optimizer(model)    # BUG: a new optimizer, the loaded state gone
    return model, optimizer


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    data = batches(x, y, steps)
    loss_fn = nn.CrossEntropyLoss()
    saved = None
    for _ in range(max(1, steps // SEGMENT)):
        checkpoint = None if saved is None else torch.load(io.BytesIO(saved))
        model, optimizer = resume(checkpoint, fixed)
        with nd.watch(model, optimizer, **watch) as mon:
            if checkpoint is not None:
                mon.load_state_dict(checkpoint["nndebug"])
            for _, (xb, yb) in zip(range(SEGMENT), data):
                optimizer.zero_grad()
                loss = loss_fn(model(xb), yb)
                loss.backward()
                optimizer.step()
                mon.step(loss)
            buffer = io.BytesIO()
            torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                        "nndebug": mon.state_dict()}, buffer)
            saved = buffer.getvalue()
    return mon
