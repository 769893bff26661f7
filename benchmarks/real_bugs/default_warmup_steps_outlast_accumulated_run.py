"""A GPT-2 training script's default ``warmup_steps=2000`` kept for a short run with
gradient accumulation: the scheduler advances once per optimizer step, the run has far
fewer optimizer steps than 2000, so the learning rate is still on its warm-up ramp when
training ends - it never gets near the rate configured, and the model converges slowly.

Reported: "gradient_accumulation及warmup_steps参数问题" ("questions about the
gradient_accumulation and warmup_steps parameters") -
https://github.com/Morizeyao/GPT2-Chinese/issues/60 ("the default warmup=2000, lr=1.5e-4;
if the total number of steps is below 2000 the real lr stays in [0, 1.5e-4) ... it is hard
to converge ... I suggest a default warmup of 0"; the maintainer also called the
gradient_accumulation handling "indeed a bug").

Here a digits MLP (64-64-10), micro-batches of 16 accumulated 8 times (batches of 128),
AdamW at 3e-3 with ``get_linear_schedule_with_warmup``'s rule (linear warm-up over
``warmup_steps``, then linear decay to ``total_steps``) stepped after each optimizer step,
200 optimizer steps. Fix: no warm-up (as the report suggests).

Measured (held-out accuracy on 397 digits): seed 0: 0.78 with the bug against 0.96 for the
fixed twin; seeds shifted by 1000: 0.71 against 0.93.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._common import mlp
from benchmarks.real_bugs._grad_accum import accuracy, digits_split, micro_batches

TITLE = "gradient_accumulation及warmup_steps参数问题"
LINK = "https://github.com/Morizeyao/GPT2-Chinese/issues/60"
EXPECTED = ("LR_TOO_LOW", "SCHEDULE_LENGTH_MISMATCH", "LR_GROWS_DURING_TRAINING")
STEPS = 200              # optimizer steps
GRADIENT_ACCUMULATION, MICRO_BATCH = 8, 16
LR, WARMUP_STEPS = 3e-3, 2000


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_test, y_test = digits_split()
    model = mlp()
    optimizer = torch.optim.AdamW(model.parameters(), lr=LR)
    total_steps = steps
    warmup_steps = 0 if fixed else WARMUP_STEPS     # BUG: the default, > total_steps

    def linear_with_warmup(step):
        if step < warmup_steps:
            return step / warmup_steps
        return max(0.0, (total_steps - step) / max(1, total_steps - warmup_steps))

    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, linear_with_warmup)
    data = micro_batches(steps, GRADIENT_ACCUMULATION, MICRO_BATCH)
    with nd.watch(model, optimizer, **watch) as mon:
        for overall_step, index in enumerate(data):
            loss = torch.nn.functional.cross_entropy(model(x[index]), y[index])
            (loss / GRADIENT_ACCUMULATION).backward()
            if (overall_step + 1) % GRADIENT_ACCUMULATION == 0:
                optimizer.step()
                optimizer.zero_grad()
                scheduler.step()
                mon.step(loss)
    mon.held_out_accuracy = accuracy(model, x_test, y_test)
    return mon
