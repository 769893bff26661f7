"""Resuming from a checkpoint restores the model and the optimizer but not the learning-rate
scheduler: the scheduler is built anew at step zero, so every resumed run warms up again
and then decays over the whole planned length. A model already trained is taken back up to
the peak rate, and training ends at a large rate instead of near zero.

Reported: "Resume scheduler properly" - https://github.com/lightly-ai/lightly-train/pull/301
("the learning rate will reset to the initial stage when `resume_interrupted=True`. This is
because the scheduler status is not saved and resumed properly, so `last_epoch` is always
equal to -1 when resumed from checkpoints"; merged). Here a digits MLP under SGD with
momentum, a linear warm-up and a linear decay planned over 150 steps, trained as a job
stopped and resumed every 30 steps from a checkpoint holding the model, the optimizer and
the nndebug monitor's state (as ``long_run.py`` documents). Fix: save
``scheduler.state_dict()`` and load it on resume.

How watch finds it: the recorded rates rise and fall again after each resume, which a
cyclic or restarting schedule also draws. On resume the monitor reads the schedulers driving
the optimizer at its first step: this one has counted no step although the run has taken
120, so it was built anew and not loaded (SCHEDULER_RESTARTED_ON_RESUME; a loaded one has
counted the steps or epochs before the resume).
"""
import io

import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "Resume scheduler properly"
LINK = "https://github.com/lightly-ai/lightly-train/pull/301"
EXPECTED = ("SCHEDULER_RESTARTED_ON_RESUME",)
STEPS = 150
SEGMENT = 30         # steps each run trains before the job is stopped and resumed
PEAK_LR = 0.3
WARMUP = 15          # steps of linear warm-up, then a linear decay to zero at STEPS


def schedule(total):
    def factor(step):
        if step < WARMUP:
            return (step + 1) / WARMUP
        return max(0.0, (total - step) / (total - WARMUP))
    return factor


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    x_val, y_val = x[-500:], y[-500:]
    data = batches(x[:-500], y[:-500], steps)
    loss_fn = nn.CrossEntropyLoss()
    saved = None
    for _ in range(max(1, steps // SEGMENT)):
        checkpoint = None if saved is None else torch.load(io.BytesIO(saved))
        model = mlp()
        optimizer = torch.optim.SGD(model.parameters(), lr=PEAK_LR, momentum=0.9)
        scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, schedule(steps))
        if checkpoint is not None:
            model.load_state_dict(checkpoint["model"])
            optimizer.load_state_dict(checkpoint["optimizer"])
            if fixed:
                scheduler.load_state_dict(checkpoint["scheduler"])
            # BUG (not fixed): the scheduler stays at step 0, its warm-up starts again
        with nd.watch(model, optimizer, **watch) as mon:
            if checkpoint is not None:
                mon.load_state_dict(checkpoint["nndebug"])
            for _, (xb, yb) in zip(range(SEGMENT), data):
                optimizer.zero_grad()
                loss = loss_fn(model(xb), yb)
                loss.backward()
                optimizer.step()
                scheduler.step()
                mon.step(loss)
            buffer = io.BytesIO()
            torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                        "scheduler": scheduler.state_dict(), "nndebug": mon.state_dict()},
                       buffer)
            saved = buffer.getvalue()
    return mon
