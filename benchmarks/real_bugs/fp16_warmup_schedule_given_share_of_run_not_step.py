"""The fp16 branch of a BERT fine-tuning script sets the learning rate by hand every
optimizer step (the fused fp16 Adam has no schedule of its own) and passes
``global_step / num_train_optimization_steps`` - the share of the run already done - to a
schedule whose ``get_lr(step)`` divides by ``t_total`` itself. The share is divided twice,
the schedule never leaves its warm-up ramp, and the learning rate creeps up from 0 to
1/15 of the one configured: the loss falls slowly and the model ends far from trained.

Reported: "Bug in run_classifier.py fp16 learning rate" -
https://github.com/huggingface/transformers/issues/566 ("After the latest update, my
learning rate of fp16 in run_classifier.py keeps increasing"; the correct call is
``warmup_linear.get_lr(global_step, args.warmup_proportion)``: "global_step /
num_train_optimization_steps makes process calculated again ... it would be too small to
decrease"; a commenter's fp16 run sat at 9% training accuracy; fixed by #598).

Here a digits MLP (64-64-10) trained the way the script does it: forward under
``torch.autocast("cpu", dtype=torch.bfloat16)`` (the CPU stand-in for fp16), micro-batches
of 16 accumulated 4 times (``loss / 4``) into batches of 64, Adam at 3e-3 with 10% linear
warm-up and linear decay over 150 optimizer steps, the rate written into the param group
before each step. Fix: ``get_lr(global_step)``.

Measured (held-out accuracy on 397 digits): seed 0: 0.44 with the bug against 0.94 for the
fixed twin; seeds shifted by 1000: 0.40 against 0.91.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._grad_accum import (WarmupLinearSchedule, accuracy, digits_split,
                                              micro_batches)
from benchmarks.real_bugs._common import mlp

TITLE = "Bug in run_classifier.py fp16 learning rate"
LINK = "https://github.com/huggingface/transformers/issues/566"
EXPECTED = ("LR_TOO_LOW",)
STEPS = 150              # optimizer steps
ACCUMULATE, MICRO_BATCH = 4, 16
LEARNING_RATE, WARMUP = 3e-3, 0.1


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_test, y_test = digits_split()
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=LEARNING_RATE)
    num_train_optimization_steps = steps
    warmup_linear = WarmupLinearSchedule(warmup=WARMUP, t_total=num_train_optimization_steps)
    data = micro_batches(steps, ACCUMULATE, MICRO_BATCH)
    global_step = 0
    with nd.watch(model, optimizer, **watch) as mon:
        for step, index in enumerate(data):
            with torch.autocast("cpu", dtype=torch.bfloat16):
                logits = model(x[index])
            loss = torch.nn.functional.cross_entropy(logits.float(), y[index])
            (loss / ACCUMULATE).backward()
            if (step + 1) % ACCUMULATE == 0:
                if fixed:
                    lr_this_step = LEARNING_RATE * warmup_linear.get_lr(global_step)
                else:   # BUG: the share of the run, which get_lr divides by t_total again
                    lr_this_step = LEARNING_RATE * warmup_linear.get_lr(
                        global_step / num_train_optimization_steps)
                for param_group in optimizer.param_groups:
                    param_group["lr"] = lr_this_step
                optimizer.step()
                optimizer.zero_grad()
                global_step += 1
                mon.step(loss)
    mon.held_out_accuracy = accuracy(model, x_test, y_test)
    return mon
