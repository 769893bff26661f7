"""A LightningModule overrides the ``lr_scheduler_step`` hook and calls
``scheduler.step(epoch=self.current_epoch)`` for a per-step OneCycleLR (``"interval":
"step"``). Lightning calls the hook after every optimizer step, but the scheduler is told
each time that it is at "step" ``current_epoch`` (0, 1, 2, ...) of its cycle, so the
learning rate stays at the very start of the warm-up (``max_lr / div_factor``) for the
whole run instead of climbing to ``max_lr`` and annealing. Nothing errs; the run simply
trains at a rate 25 times smaller than the one it was tuned for.

Reported: "Fix a bug for onecycle scheduler usage in Pytorch Lightening Version" -
https://github.com/chengtan9907/OpenSTL/issues/113 (OpenSTL's Lightning base method
stepped every scheduler with ``epoch=self.current_epoch``; with the per-iteration
OneCycleLR the results fell short of the paper's; the fix was to call
``scheduler.step()`` with no epoch (the maintainers removed the override)). Here: a
64-64-10 MLP on the 8x8 digits (1,300 training rows, batches of 32, ~40 steps an
epoch), Adam with OneCycleLR(max_lr 0.01, total_steps = the run's steps, div_factor 25)
stepped per step, 150 optimizer steps in a Lightning Trainer. Fix: ``scheduler.step()``.

**Measured** (497 held-out digits): seed 0, held-out accuracy 0.775 (loss 1.80)
for the bug against 0.897 (0.341) for the fixed twin; every seed shifted by 1000, 0.726
(1.75) against 0.895 (0.343).
"""
import lightning.pytorch as pl
import torch
from torch import nn

from benchmarks.real_bugs._lit144 import digits, fit, held_out, loader, mlp

TITLE = "Fix a bug for onecycle scheduler usage in Pytorch Lightening Version"
LINK = "https://github.com/chengtan9907/OpenSTL/issues/113"
EXPECTED = ("SCHEDULE_LENGTH_MISMATCH", "LR_TOO_LOW")
STEPS = 150
MAX_LR = 0.01


class OneCycleClassifier(pl.LightningModule):
    def __init__(self, fixed, total_steps):
        super().__init__()
        self.fixed = fixed
        self.total_steps = total_steps
        self.net = mlp()

    def forward(self, x):
        return self.net(x)

    def training_step(self, batch, batch_idx):
        xb, yb = batch
        loss = nn.functional.cross_entropy(self(xb), yb)
        self.log("train_loss", loss)
        return loss

    def configure_optimizers(self):
        opt = torch.optim.Adam(self.parameters(), lr=MAX_LR)
        sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=MAX_LR,
                                                    total_steps=self.total_steps + 1)
        return {"optimizer": opt,
                "lr_scheduler": {"scheduler": sched, "interval": "step"}}

    def lr_scheduler_step(self, scheduler, metric):
        if self.fixed:
            scheduler.step()
        else:
            # BUG: the per-step schedule is told it is at "step" current_epoch
            scheduler.step(epoch=self.current_epoch)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_held, y_held = digits()
    module = OneCycleClassifier(fixed, steps)
    mon = fit(module, loader(x, y), steps, **watch)
    mon.held_out_loss, mon.held_out_accuracy = held_out(module, x_held, y_held)
    return mon
