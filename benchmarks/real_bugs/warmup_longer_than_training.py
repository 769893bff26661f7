"""A linear warm-up-then-decay schedule built for the wrong number of training steps: the
total was divided by the batch size twice, so the warm-up is longer than the whole run and
the learning rate climbs from zero on every step and never reaches its peak.

Reported: "关于 num_warmup_steps" (about num_warmup_steps) -
https://github.com/gaoyixu/CAIL2020-Argument-Mining/issues/1 ("the real
num_training_steps is smaller than num_warmup_steps, so the learning rate increases
monotonically ... len(data_loader['train']) is already the number of batches, so
// config.batch_size divides a second time?"). Here a digits MLP with Adam, a warm-up of
half the computed total (as in the report), the total counted as batches // batch size.
Fix: the total counted in batches (warm-up over the first 15 steps of 300).
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "关于 num_warmup_steps"
LINK = "https://github.com/gaoyixu/CAIL2020-Argument-Mining/issues/1"
EXPECTED = ("LR_GROWS_DURING_TRAINING",)
STEPS = 300
BATCH_SIZE = 64
EPOCHS = 10
PEAK_LR = 1e-3


def linear_schedule(warmup, total):
    """Linear warm-up from 0 to the peak over ``warmup`` steps, then linear decay to 0 at
    ``total`` (the usual shape of transformers' get_linear_schedule_with_warmup)."""
    def factor(step):
        if step < warmup:
            return step / max(1, warmup)
        return max(0.0, (total - step) / max(1, total - warmup))
    return factor


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=PEAK_LR)
    batches_per_epoch = steps // EPOCHS
    if fixed:
        total, warmup = steps, steps // 20
    else:
        # BUG: batches_per_epoch is already a count of batches; dividing it by the batch
        # size again makes the computed total far too small, and the warm-up (a share of a
        # misread config: 1000 steps) outlasts the run
        total = EPOCHS * max(1, batches_per_epoch // BATCH_SIZE)
        warmup = 1000
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, linear_schedule(warmup, total))
    loss_fn = torch.nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps, batch_size=BATCH_SIZE):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            scheduler.step()
            mon.step(loss)
    return mon
