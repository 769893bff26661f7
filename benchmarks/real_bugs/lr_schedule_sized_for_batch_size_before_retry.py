"""A linear-decay learning-rate schedule sized for the batch size training started with,
kept when the run is retried with a smaller batch. The training loop is started again with
half the batch after each out-of-memory failure, but the scheduler (built once, from the
first attempt's batch size) still counts the first attempt's steps: after three halvings
the run takes 8 times the steps the schedule was built for, so the rate reaches zero an
eighth of the way in and the remaining seven eighths of training change nothing. No error:
the loss falls for a while, then stays where it was.

Reported: "lr_scheduler not updated when auto_find_batch_size set to True and batch_size
decays" - https://github.com/huggingface/transformers/issues/21521 (the Trainer's
``auto_find_batch_size`` re-runs its inner training loop with a halved batch after each
CUDA OOM; with a per-device batch of 512 that decayed three times the learning rate "decays
to zero before the end of the first training epoch" of three; the scheduler was built from
the first batch size's step count. Fixed by pull requests #24521, which counts the steps
from the batch size in use, and #24758, which builds a new scheduler on every re-run).
Here a digits MLP with AdamW (lr 1e-3, the linear schedule without warm-up), 20 epochs of
1,400 training digits; the first attempt's batch of 512 "does not fit" and the loop re-runs
at 256, 128 and then 64, where it trains (21 steps an epoch, 420 steps). Fix: the
schedule's length counted from the batch size the loop trains with.

Measured (held-out accuracy on 397 digits): seed 0, 0.54 for the bug against 0.94 for the
fixed twin; seeds shifted by 1000, 0.50 against 0.92. The bug's rate is zero from step 40
of 420.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._common import batches, mlp
from benchmarks.real_bugs._nb147 import accuracy, split

TITLE = ("lr_scheduler not updated when auto_find_batch_size set to True and batch_size "
         "decays")
LINK = "https://github.com/huggingface/transformers/issues/21521"
EXPECTED = ("LR_AT_ZERO", "SCHEDULE_LENGTH_MISMATCH")
EPOCHS = 20
FIRST_BATCH = 512           # the per-device batch the report started from
FITS = 64                   # the batch that "fits" after three halvings
STEPS = EPOCHS * (1400 // FITS)
LR = 1e-3


def linear_decay(total):
    return lambda step: max(0.0, (total - step) / max(1, total))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_held, y_held = split(0)
    model = mlp()
    optimizer = torch.optim.AdamW(model.parameters(), lr=LR)
    scheduler = None
    batch = FIRST_BATCH
    while True:               # the retry loop: halve the batch after each "OOM"
        if scheduler is None or fixed:
            # BUG (fixed=False): built once, from the first attempt's batch size
            total = EPOCHS * (len(x) // batch) * steps // STEPS
            for group in optimizer.param_groups:
                group["lr"] = LR
            scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, linear_decay(total))
        if batch > FITS:      # out of memory before the first step: try again, smaller
            batch //= 2
            continue
        break
    loss_fn = torch.nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps, batch_size=batch):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            scheduler.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, x_held, y_held)
    return mon
