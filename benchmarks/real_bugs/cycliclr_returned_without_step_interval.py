"""``configure_optimizers`` returns ``[optimizer], [CyclicLR(...)]``: a scheduler handed
to Lightning without a dict is stepped once per EPOCH, while CyclicLR's ``step_size_up``
counts batches. Over a run of a few epochs the cyclic schedule takes a handful of steps
and the learning rate sits at ``base_lr`` (here 100 times under ``max_lr``) the whole
time: training runs, the loss falls slowly, nothing errs.

Reported: "lr_scheduler step() called after every epoch instead of after every batch" -
https://github.com/Lightning-AI/pytorch-lightning/issues/5631 (with CyclicLR the
learning rate was constant within each epoch; the maintainer's answer: Lightning steps
schedulers per epoch unless they are returned as ``{"scheduler": ..., "interval":
"step"}``, which fixed it). Here: a 64-64-10 MLP on the 8x8 digits (1,300 training rows,
batches of 32, ~40 steps an epoch), SGD momentum 0.9 with CyclicLR(base_lr 0.001, max_lr
0.1, step_size_up 25), 150 optimizer steps in a Lightning Trainer. Fix: return the
scheduler in a dict with ``"interval": "step"``.

**Measured** (497 held-out digits): seed 0, held-out accuracy 0.769 (loss 1.42)
for the bug against 0.887 (0.393) for the fixed twin; every seed shifted by 1000, 0.781
(1.41) against 0.889 (0.376).
"""
import lightning.pytorch as pl
import torch
from torch import nn

from benchmarks.real_bugs._lit144 import digits, fit, held_out, loader, mlp

TITLE = "lr_scheduler step() called after every epoch instead of after every batch"
LINK = "https://github.com/Lightning-AI/pytorch-lightning/issues/5631"
EXPECTED = ("SCHEDULE_LENGTH_MISMATCH", "LR_TOO_LOW")
STEPS = 150


class CyclicClassifier(pl.LightningModule):
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
        opt = torch.optim.SGD(self.parameters(), lr=0.1, momentum=0.9)
        sched = torch.optim.lr_scheduler.CyclicLR(opt, base_lr=0.001, max_lr=0.1,
                                                  step_size_up=25)
        if self.fixed:
            return {"optimizer": opt,
                    "lr_scheduler": {"scheduler": sched, "interval": "step"}}
        return [opt], [sched]       # BUG: stepped once per epoch


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_held, y_held = digits()
    module = CyclicClassifier(fixed)
    mon = fit(module, loader(x, y), steps, **watch)
    mon.held_out_loss, mon.held_out_accuracy = held_out(module, x_held, y_held)
    return mon
