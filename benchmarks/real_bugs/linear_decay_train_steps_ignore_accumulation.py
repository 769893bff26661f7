"""The number of optimization steps that sizes a linear-decay learning-rate schedule
computed as ``ceil(num_train_examples / train_batch_size)`` per epoch - micro-batches -
while the optimizer (and the schedule) steps once every ``gradient_accumulation_steps``
micro-batches. With 8 accumulated micro-batches the decay is stretched over eight times
the run: the rate is still 7/8 of its peak at the last step and is never annealed.

Reported: "[TFTrainer] Wrong number of optimization steps" -
https://github.com/huggingface/transformers/issues/5072 ("It seems TFTrainer compute the
wrong number of optimization steps ... It does not take into account the gradient
accumulation"; the proposed line divides by ``train_batch_size *
gradient_accumulation_steps``; a maintainer: "You are right, the number of optimization
steps is already fixed in an another PR").

Here the PyTorch form: a digits MLP (64-64-10) on training labels of which 50% are
replaced at random, micro-batches of 16 accumulated 8 times (batches of 128), Adam at 3e-2
decayed linearly to 0 over ``t_total = train_steps * num_train_epochs``, 16 epochs. Fix:
``ceil(num_train_examples / (train_batch_size * gradient_accumulation_steps))``.

Measured (held-out accuracy on 397 digits): seed 0: 0.89 with the bug against 0.93 for the
fixed twin; seeds shifted by 1000: 0.89 against 0.92.
"""
import math

import numpy as np
import torch

import nndebug as nd
from benchmarks.real_bugs._common import mlp
from benchmarks.real_bugs._grad_accum import (TRAIN_ROWS, accuracy, digits_split,
                                              micro_batches)

TITLE = "[TFTrainer] Wrong number of optimization steps"
LINK = "https://github.com/huggingface/transformers/issues/5072"
EXPECTED = ("SCHEDULE_LENGTH_MISMATCH",)
STEPS = 175              # optimizer steps (16 epochs of 88 micro-batches, 8 per step)
TRAIN_BATCH_SIZE, GRADIENT_ACCUMULATION_STEPS = 16, 8
LEARNING_RATE, NOISY_SHARE = 3e-2, 0.5


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x, y, x_test, y_test = digits_split()
    y = y.clone()
    noisy = torch.from_numpy(rng.random(len(y)) < NOISY_SHARE)
    y[noisy] = torch.from_numpy(rng.integers(0, 10, int(noisy.sum())))
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=LEARNING_RATE)
    train_steps = math.ceil(TRAIN_ROWS / TRAIN_BATCH_SIZE)                  # BUG
    if fixed:
        train_steps = math.ceil(TRAIN_ROWS / (TRAIN_BATCH_SIZE * GRADIENT_ACCUMULATION_STEPS))
    num_train_epochs = steps * GRADIENT_ACCUMULATION_STEPS * TRAIN_BATCH_SIZE / TRAIN_ROWS
    t_total = int(train_steps * num_train_epochs)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: max(0.0, 1.0 - step / t_total))
    data = micro_batches(steps, GRADIENT_ACCUMULATION_STEPS, TRAIN_BATCH_SIZE)
    with nd.watch(model, optimizer, **watch) as mon:
        for step, index in enumerate(data):
            loss = torch.nn.functional.cross_entropy(model(x[index]), y[index])
            (loss / GRADIENT_ACCUMULATION_STEPS).backward()
            if (step + 1) % GRADIENT_ACCUMULATION_STEPS == 0:
                optimizer.step()
                optimizer.zero_grad()
                scheduler.step()
                mon.step(loss)
    mon.held_out_accuracy = accuracy(model, x_test, y_test)
    return mon
