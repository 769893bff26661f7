"""A hand-written warm-up scheduler that returns ONE rate for every param group: its
``get_lr`` multiplies a single final rate (the first group's) by the warm-up factor for each
group, so a model built with two groups - a body at a small rate, a head at a large one -
trains both at the head's rate from the first step.

Reported: "LR scheduler issue with multiple parameter groups" -
https://github.com/microsoft/hi-ml/issues/611 (the warm-up scheduler's
``get_lr`` is ``[self.final_lr * self.warmup_multiplier() for g in
self.optimizer.param_groups]``: "Need to return LRs for each param group"; hi-ml fine-tunes
pretrained encoders). Here a digits MLP (64-128-128-10) whose two hidden layers were first
pretrained (150 Adam steps on the digits 0-4, a 5-way head) and which is then fine-tuned on
all ten digits with a new head, under SGD with momentum 0.9: the new head's group at 0.5
(group 0), the pretrained body's group at 0.02, a linear warm-up over 20 steps, 300 steps.
Measured (seed 0) on 500 held-out digits: loss 1.85 and accuracy 27.6% with both groups at 0.5
(the pretrained body wrecked, the loss diverging), against 0.37 and 93.4% with the body at
its own 0.02. (As first written the body was not pretrained; the fixed twin then drew
PRETRAINED_WEIGHTS_NOT_LOADED - a fresh body at a fine-tuning rate, which that rule rightly
finds odd - so the case now fine-tunes a pretrained body, as hi-ml does.)
Fix: scale each group's own base rate,
``[base * self.warmup_multiplier() for base in self.base_lrs]``.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "LR scheduler issue with multiple parameter groups"
LINK = "https://github.com/microsoft/hi-ml/issues/611"
EXPECTED = ("GROUP_RATES_OVERWRITTEN",)
STEPS = 300
HEAD_LR = 0.5
BODY_LR = 0.02
WARMUP = 20
HELD_OUT = 500
PRETRAIN = 150        # Adam steps on the digits 0-4 that give the body its pretrained weights


class LinearWarmup(torch.optim.lr_scheduler.LRScheduler):
    """Warm-up to the rates the optimizer was built with, then constant."""

    def __init__(self, optimizer, warmup, fixed):
        self.warmup, self.fixed = warmup, fixed
        self.final_lr = optimizer.param_groups[0]["lr"]
        super().__init__(optimizer)

    def warmup_multiplier(self):
        return min(1.0, (self.last_epoch + 1) / self.warmup)

    def get_lr(self):
        if self.fixed:
            return [base * self.warmup_multiplier() for base in self.base_lrs]
        # BUG: one rate (the first group's) for every group
        return [self.final_lr * self.warmup_multiplier() for g in self.optimizer.param_groups]


def pretrain(model, x, y):
    """The body's pretrained weights: the digits 0-4 with a 5-way head (not watched)."""
    keep = y < 5
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for xb, yb in batches(x[keep], y[keep], PRETRAIN, seed=1):
        optimizer.zero_grad()
        nn.functional.cross_entropy(model(xb), yb).backward()
        optimizer.step()


def train(fixed=False, steps=STEPS, **watch):
    """The monitor, the model, the held-out (loss, accuracy) and each group's last rate."""
    torch.manual_seed(0)
    x, y = classification()
    x_val, y_val = x[-HELD_OUT:], y[-HELD_OUT:]
    x, y = x[:-HELD_OUT], y[:-HELD_OUT]
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(),
                          nn.Linear(128, 5))
    pretrain(model, x, y)
    model[4] = nn.Linear(128, 10)                      # the new head, fine-tuned
    body = list(model[0].parameters()) + list(model[2].parameters())
    optimizer = torch.optim.SGD([{"params": model[4].parameters(), "lr": HEAD_LR},
                                 {"params": body, "lr": BODY_LR}], lr=HEAD_LR, momentum=0.9)
    scheduler = LinearWarmup(optimizer, WARMUP, fixed)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            scheduler.step()
            mon.step(loss)
    with torch.no_grad():
        out = model(x_val)
        held = (loss_fn(out, y_val).item(), (out.argmax(1) == y_val).float().mean().item())
    return mon, model, held, [g["lr"] for g in optimizer.param_groups]


def run(fixed=False, steps=STEPS, **watch):
    return train(fixed, steps, **watch)[0]
