"""A linear learning-rate warm-up written as a LambdaLR over optimizer STEPS (the rate
climbs from 0 to its peak over the first W steps) is returned from
``configure_optimizers`` without ``"interval": "step"``. Lightning then steps it once per
EPOCH, so the warm-up that should end after W batches takes W epochs: over a run of a
few epochs the rate never leaves the first few percent of its peak. The loss falls,
slowly; nothing errs.

Reported: "Set scheduler interval to step, and fewer warmup steps" -
https://github.com/ace-step/ACE-Step/pull/198 (ACE-Step's LoRA trainer returned its
step-based warm-up scheduler without an interval, so Lightning ran ``lr_scheduler.step()``
once an epoch and the 4,000-step warm-up would have taken 4,000 epochs; the fix sets
``"interval": "step"``). Here: a 64-64-10 MLP on the 8x8 digits (1,300 training rows,
batches of 32, ~40 steps an epoch), Adam lr 0.003 with a 30-step linear warm-up
(LambdaLR), 200 optimizer steps (5 epochs) in a Lightning Trainer. Fix: return the
scheduler as ``{"scheduler": ..., "interval": "step"}``.

**Measured** (497 held-out digits): seed 0, held-out accuracy 0.769 (loss 1.77)
for the bug against 0.895 (0.377) for the fixed twin; every seed shifted by 1000, 0.763
(1.70) against 0.891 (0.365).
"""
import lightning.pytorch as pl
import torch
from torch import nn

from benchmarks.real_bugs._lit144 import digits, fit, held_out, loader, mlp

TITLE = "Set scheduler interval to step, and fewer warmup steps"
LINK = "https://github.com/ace-step/ACE-Step/pull/198"
EXPECTED = ("SCHEDULE_LENGTH_MISMATCH", "LR_GROWS_DURING_TRAINING", "LR_TOO_LOW")
STEPS = 200
LR = 0.003
WARMUP = 30


class WarmupClassifier(pl.LightningModule):
    def __init__(self, fixed):
        super().__init__()
        self.fixed = fixed
        self.net = mlp()

    def forward(self, x):
        return self.net(x)

    def training_step(self, batch, batch_idx):
        xb, yb = batch
        loss = nn.functional.cross_entropy(self(xb), yb)
        self.log("train_loss", loss)
        return loss

    def configure_optimizers(self):
        opt = torch.optim.Adam(self.parameters(), lr=LR)
        sched = torch.optim.lr_scheduler.LambdaLR(
            opt, lambda step: min(1.0, (step + 1) / WARMUP))
        if self.fixed:
            return {"optimizer": opt,
                    "lr_scheduler": {"scheduler": sched, "interval": "step"}}
        # BUG: no interval: Lightning steps the step-based warm-up once per epoch
        return {"optimizer": opt, "lr_scheduler": sched}


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_held, y_held = digits()
    module = WarmupClassifier(fixed)
    mon = fit(module, loader(x, y), steps, **watch)
    mon.held_out_loss, mon.held_out_accuracy = held_out(module, x_held, y_held)
    return mon
