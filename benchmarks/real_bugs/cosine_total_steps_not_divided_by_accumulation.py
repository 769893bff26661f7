"""The total number of training steps for a cosine learning-rate schedule computed as
``len(train_dataloader) * epochs`` - micro-batches - while the schedule is advanced once
per optimizer step, i.e. once every ``grad_acc`` micro-batches. With 8 accumulated
micro-batches the run ends one eighth of the way along the schedule: its 5% warm-up takes
40% of the run, the rate is still 98% of its peak at the last step and is never annealed.

Reported: "fix a bug about total steps calculation by epoch nums." -
https://github.com/PiotrNawrot/nanoT5/pull/8 ("if we also set optim.grad_acc > 1 ... the
trainable parameters will also be updated every optim.grad_acc batches ... So the
real/actual total training step should be int(len(dataloaders['train']) *
args.optim.epochs / args.optim.grad_acc)"; the author: "you're correct, great catch ...
if someone was using grad_acc it wouldn't work").

Here a digits MLP (64-64-10) on training labels of which 40% are replaced at random,
micro-batches of 16 accumulated 8 times (batches of 128), AdamW at 3e-2 with a
linear warm-up over 5% of ``total_steps`` then a half-cosine, 16 epochs. Fix: divide by
``grad_acc``.

Measured (held-out accuracy on 397 digits): seed 0: 0.90 with the bug against 0.94 for the
fixed twin; seeds shifted by 1000: 0.88 against 0.93.
"""
import numpy as np
import torch

import nndebug as nd
from benchmarks.real_bugs._common import mlp
from benchmarks.real_bugs._grad_accum import (TRAIN_ROWS, accuracy, cosine, digits_split,
                                              micro_batches)

TITLE = "fix a bug about total steps calculation by epoch nums."
LINK = "https://github.com/PiotrNawrot/nanoT5/pull/8"
EXPECTED = ("SCHEDULE_LENGTH_MISMATCH",)
STEPS = 170              # optimizer steps (16 epochs of 87 micro-batches, 8 per step)
GRAD_ACC, MICRO_BATCH = 8, 16
BASE_LR, WARMUP, NOISY_SHARE = 3e-2, 0.05, 0.4


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x, y, x_test, y_test = digits_split()
    y = y.clone()
    noisy = torch.from_numpy(rng.random(len(y)) < NOISY_SHARE)
    y[noisy] = torch.from_numpy(rng.integers(0, 10, int(noisy.sum())))
    model = mlp()
    optimizer = torch.optim.AdamW(model.parameters(), lr=BASE_LR)
    batches_per_epoch = TRAIN_ROWS // MICRO_BATCH
    epochs = steps * GRAD_ACC / batches_per_epoch
    total_steps = int(batches_per_epoch * epochs)                   # BUG: micro-batches
    if fixed:
        total_steps = int(batches_per_epoch * epochs / GRAD_ACC)
    warmup = int(WARMUP * total_steps)

    def lr_lambda(step):
        if step < warmup:
            return (step + 1) / warmup
        return cosine((step - warmup) / max(1, total_steps - warmup))

    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda)
    data = micro_batches(steps, GRAD_ACC, MICRO_BATCH)
    with nd.watch(model, optimizer, **watch) as mon:
        for step, index in enumerate(data):
            loss = torch.nn.functional.cross_entropy(model(x[index]), y[index])
            (loss / GRAD_ACC).backward()
            if (step + 1) % GRAD_ACC == 0:
                optimizer.step()
                optimizer.zero_grad()
                scheduler.step()
                mon.step(loss)
    mon.held_out_accuracy = accuracy(model, x_test, y_test)
    return mon
