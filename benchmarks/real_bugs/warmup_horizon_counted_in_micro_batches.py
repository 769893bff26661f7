"""A BERT fine-tuning script divides its batch size by ``gradient_accumulation_steps`` to
get the micro-batch it loads, then sizes the learning-rate schedule with
``len(train_examples) / train_batch_size * num_train_epochs`` - the number of
micro-batches, not of optimizer steps. The schedule is advanced once per optimizer step,
so with 32 accumulated micro-batches its 10% warm-up lasts 3.2 times the whole run: the
rate only ever climbs, to 0.31 of the one configured, and the decay never starts.

Reported: "Fix learning rate problems in run_classifier.py" -
https://github.com/huggingface/transformers/pull/218 ("Compute num_train_steps correctly
for the case where gradient_accumulation_steps > 1. The current version might lead the
the LR never leaving the warmup phase, depending on the value of
gradient_accumulation_steps. With these changes I get > 84% accuracy on MRPC, without
them its around 77%").

Here a digits MLP (64-64-10), micro-batches of 4 accumulated 32 times (``loss / 32``,
batches of 128), Adam whose rate is set by hand before each optimizer step to
2e-3 * warmup_linear(global_step / t_total, 0.1) (ramp, then 1 - x), 120 optimizer steps
(about 11 epochs). Fix: divide the micro-batch count by the accumulation steps.

Measured (held-out accuracy on 397 digits): seed 0: 0.82 with the bug against 0.91 for the
fixed twin; seeds shifted by 1000: 0.75 against 0.88.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._common import mlp
from benchmarks.real_bugs._grad_accum import (TRAIN_ROWS, accuracy, digits_split,
                                              micro_batches, warmup_linear)

TITLE = "Fix learning rate problems in run_classifier.py"
LINK = "https://github.com/huggingface/transformers/pull/218"
EXPECTED = ("SCHEDULE_LENGTH_MISMATCH", "LR_TOO_LOW", "LR_GROWS_DURING_TRAINING")
STEPS = 120              # optimizer steps
BATCH_SIZE, GRADIENT_ACCUMULATION_STEPS = 128, 32
LEARNING_RATE, WARMUP_PROPORTION = 2e-3, 0.1


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_test, y_test = digits_split()
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=LEARNING_RATE)
    train_batch_size = BATCH_SIZE // GRADIENT_ACCUMULATION_STEPS     # the micro-batch
    num_train_epochs = steps * BATCH_SIZE / TRAIN_ROWS
    num_train_steps = int(TRAIN_ROWS / train_batch_size * num_train_epochs)   # BUG
    if fixed:
        num_train_steps = int(TRAIN_ROWS / train_batch_size / GRADIENT_ACCUMULATION_STEPS
                              * num_train_epochs)
    t_total = num_train_steps
    data = micro_batches(steps, GRADIENT_ACCUMULATION_STEPS, train_batch_size)
    global_step = 0
    with nd.watch(model, optimizer, **watch) as mon:
        for step, index in enumerate(data):
            loss = torch.nn.functional.cross_entropy(model(x[index]), y[index])
            (loss / GRADIENT_ACCUMULATION_STEPS).backward()
            if (step + 1) % GRADIENT_ACCUMULATION_STEPS == 0:
                lr_this_step = LEARNING_RATE * warmup_linear(global_step / t_total,
                                                             WARMUP_PROPORTION)
                for param_group in optimizer.param_groups:
                    param_group["lr"] = lr_this_step
                optimizer.step()
                optimizer.zero_grad()
                global_step += 1
                mon.step(loss)
    mon.held_out_accuracy = accuracy(model, x_test, y_test)
    return mon
