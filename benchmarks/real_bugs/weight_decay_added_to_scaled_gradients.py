"""Weight decay written into the gradients by hand (``p.grad += wd * p``) between the
scaled backward and ``scaler.step``: the gradients at that point are the loss gradient
times the loss scale (65536 at the start, growing while no step overflows), and the step
divides everything by the scale, so the decay term reaches the update 65536+ times
weaker than written - in effect no weight decay at all. Nothing is NaN, no step is
skipped, the training loss falls faster than with the decay: the model simply memorises
its noisy labels without the regularisation the run was configured with.

Reported: "Grad is wrong when using `WeightDecay` of Optimizer Hook and loss scaling" -
https://github.com/chainer/chainer/issues/7335 (Chainer's ``WeightDecay`` optimizer hook
added ``rate * param`` to the gradient before the optimizer divided the gradients by the
loss scale, so with loss scaling the decay was divided by the scale too; the fix applies
the decay after the gradients are unscaled). Here the PyTorch form: the decay loop runs
before ``scaler.step``; fixed, after ``scaler.unscale_(optimizer)``.

Here a wide MLP (64-512-10) on 300 training digits with 40% of their labels replaced by
random ones (397 clean digits held out), forward under ``torch.autocast("cpu",
dtype=torch.float16)`` with ``GradScaler("cpu")``, SGD with momentum 0.9 at 0.05, weight
decay 0.01 written into the gradients, batches of 50.

Measured (held-out accuracy): seed 0: 0.74 with the bug against 0.89 for the fixed twin;
seeds shifted by 1000: 0.68 against 0.82.
"""
import numpy as np
import torch

import nndebug as nd
from benchmarks.real_bugs._amp151 import accuracy, digits_split
from benchmarks.real_bugs._common import index_batches, mlp

TITLE = "Grad is wrong when using `WeightDecay` of Optimizer Hook and loss scaling"
LINK = "https://github.com/chainer/chainer/issues/7335"
EXPECTED = ("WEIGHT_DECAY_ON_SCALED_GRADIENTS",)
STEPS = 600
DECAY, NOISY_SHARE, ROWS = 0.01, 0.4, 300


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x, y, x_test, y_test = digits_split()
    x, y = x[:ROWS], y[:ROWS].clone()
    noisy = torch.from_numpy(rng.random(ROWS) < NOISY_SHARE)
    y[noisy] = torch.from_numpy(rng.integers(0, 10, int(noisy.sum())))
    model = mlp(hidden=512)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    scaler = torch.amp.GradScaler("cpu")
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(ROWS, steps, 50):
            optimizer.zero_grad()
            with torch.autocast("cpu", dtype=torch.float16):
                loss = torch.nn.functional.cross_entropy(model(x[index]).float(), y[index])
            scaler.scale(loss).backward()
            if fixed:
                scaler.unscale_(optimizer)
            with torch.no_grad():   # BUG unless fixed: added to the still-scaled gradients
                for p in model.parameters():
                    p.grad.add_(p, alpha=DECAY)
            scaler.step(optimizer)
            scaler.update()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, x_test, y_test)
    return mon
