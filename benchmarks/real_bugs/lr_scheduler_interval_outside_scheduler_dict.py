"""``configure_optimizers`` returns ``{"optimizer": opt, "lr_scheduler": OneCycleLR(...),
"interval": "step"}``: the ``"interval"`` key sits beside the scheduler instead of inside
the scheduler's own dict, so Lightning never reads it and steps the one-cycle schedule at
its default interval, once per EPOCH. The schedule was sized in optimizer steps
(``steps_per_epoch=len(loader)``), so after E epochs it has walked E of its E x len(loader)
steps: the rate sits at the warm-up's start, max_lr / 25, for the whole run. Lightning
only prints a warning among its start-up messages; the loss falls, slowly.

Reported: "Learning rate interval update not working properly" -
https://github.com/Lightning-AI/pytorch-lightning/issues/6948 (with OneCycleLR and
``'interval': 'step'`` returned at the top level of the dict, the rate logged at the end
of training had barely moved unless ``steps_per_epoch = 1``; the answer: ``interval``
belongs inside the ``lr_scheduler`` dict, ``{"scheduler": sched, "interval": "step"}``).
Here: a 64-64-10 MLP on the 8x8 digits (1,300 training rows, batches of 32, 40 batches
an epoch) under SGD with momentum 0.9 and OneCycleLR(max_lr=0.1) for 10 epochs (400
steps), trained by a Lightning Trainer. Fix: ``"lr_scheduler": {"scheduler": sched,
"interval": "step"}``.

**Measured** (497 held-out digits): seed 0, held-out accuracy 0.881 (loss 0.430) for the
bug - its rate went from 4.0e-3 to 5.7e-3 in the 10 scheduler steps it got - against 0.928
(0.273) for the fixed twin; every seed shifted by 1000, 0.883 (0.415) against 0.930
(0.274).
"""
import lightning.pytorch as pl
import torch
from torch import nn

from benchmarks.real_bugs._lit144 import digits, fit, held_out, loader, mlp

TITLE = "Learning rate interval update not working properly"
LINK = "https://github.com/Lightning-AI/pytorch-lightning/issues/6948"
EXPECTED = ("SCHEDULE_LENGTH_MISMATCH", "LR_TOO_LOW")
STEPS = 400
EPOCHS = 10
MAX_LR = 0.1


class DigitsClassifier(pl.LightningModule):
    def __init__(self, fixed, batches_per_epoch):
        super().__init__()
        self.fixed = fixed
        self.batches_per_epoch = batches_per_epoch
        self.net = mlp()

    def forward(self, x):
        return self.net(x)

    def training_step(self, batch, batch_idx):
        xb, yb = batch
        loss = nn.functional.cross_entropy(self(xb), yb)
        self.log("train_loss", loss)
        return loss

    def configure_optimizers(self):
        optimizer = torch.optim.SGD(self.parameters(), lr=MAX_LR, momentum=0.9)
        scheduler = torch.optim.lr_scheduler.OneCycleLR(
            optimizer, max_lr=MAX_LR, epochs=EPOCHS, steps_per_epoch=self.batches_per_epoch)
        if self.fixed:
            return {"optimizer": optimizer,
                    "lr_scheduler": {"scheduler": scheduler, "interval": "step"}}
        return {"optimizer": optimizer, "lr_scheduler": scheduler,
                "interval": "step"}            # BUG: beside the scheduler, never read


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_held, y_held = digits()
    train = loader(x, y)
    module = DigitsClassifier(fixed, len(train))
    mon = fit(module, train, steps, **watch)
    mon.held_out_loss, mon.held_out_accuracy = held_out(module, x_held, y_held)
    mon.final_lr = module.trainer.optimizers[0].param_groups[0]["lr"]
    return mon
