"""Mixed-precision training clips the gradients while they are still multiplied by the
loss scale: clip_grad_norm_ sees a norm tens of thousands of times too large and shrinks
the gradient to max_norm / scale of its size; the scaler then divides by the scale again,
so every step moves the weights almost nothing and the loss curve stays flat.

Reported: "Clip norm after scaler.unscale_ in native fp16 training" -
https://github.com/Lightning-AI/pytorch-lightning/issues/9599 ("the loss converged very
slow ... `gradient_clip_val` may lead to a very flat learning curve if used together with
native amp"; confirmed and fixed in 1.4.9). GradScaler's arithmetic is emulated here on the
CPU (no fp16 needed): the loss is multiplied by the scale before backward() and the
gradients divided by it before step(), as scaler.scale() and scaler.step() do. A digits
MLP with Adam, clipped to norm 1. Fix: unscale (divide by the scale) before clipping.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "Clip norm after scaler.unscale_ in native fp16 training"
LINK = "https://github.com/Lightning-AI/pytorch-lightning/issues/9599"
EXPECTED = ("LR_TOO_LOW",)
STEPS = 150
SCALE = 2.0 ** 16       # GradScaler's default init_scale
MAX_NORM = 1.0


def unscale(model):
    """What scaler.unscale_(optimizer) (or scaler.step) does to the gradients."""
    for p in model.parameters():
        if p.grad is not None:
            p.grad.div_(SCALE)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            (loss * SCALE).backward()                # scaler.scale(loss).backward()
            if fixed:
                unscale(model)
            nn.utils.clip_grad_norm_(model.parameters(), MAX_NORM)
            if not fixed:                            # BUG: unscaled only after clipping
                unscale(model)                       # (inside scaler.step)
            optimizer.step()
            mon.step(loss)
    return mon
