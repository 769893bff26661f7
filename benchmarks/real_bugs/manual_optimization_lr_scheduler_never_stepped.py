"""A LightningModule moved to manual optimisation (``self.automatic_optimization =
False``) keeps the exponential learning-rate decay it returns from
``configure_optimizers``, but under manual optimisation Lightning no longer steps any
scheduler: the user must call ``self.lr_schedulers().step()``. Nobody does, so the rate
stays at its starting value for the whole run; the decay that was meant to settle the
model at the end never happens. Training runs, the loss falls and then rattles about
where a decayed rate would have gone on down.

Reported: "fix(train): fix lr_decay not working" -
https://github.com/voicepaw/so-vits-svc-fork/pull/291 (after the project's rewrite onto
Lightning with manual optimisation, the configured ``lr_decay`` had no effect - the rate
in TensorBoard stayed constant, issue #292; fixed by calling ``step()`` on each
scheduler from ``self.lr_schedulers()`` once per epoch). Here: a 64-256-10 MLP on the 8x8
digits (1,300 training rows, batches of 32, 40 an epoch) under SGD (lr 0.5, momentum 0.9)
with ExponentialLR(gamma=0.7) meant per epoch, 12 epochs (480 steps), manual optimisation
in a Lightning Trainer. Fix: ``self.lr_schedulers().step()`` at the end of each epoch.

**Measured** (497 held-out digits): seed 0, held-out accuracy 0.875 (loss 0.745) for the
bug, its rate still 0.5 at the end, against 0.930 (0.257) for the fixed twin (rate decayed
to 6.9e-3); every seed shifted by 1000, 0.905 (0.414) against 0.930 (0.274).
"""
import lightning.pytorch as pl
import torch
from torch import nn

from benchmarks.real_bugs._lit144 import digits, fit, held_out, loader, mlp

TITLE = "fix(train): fix lr_decay not working"
LINK = "https://github.com/voicepaw/so-vits-svc-fork/pull/291"
EXPECTED = ("LR_SCHEDULER_NEVER_STEPPED",)
STEPS = 480
LR = 0.5
GAMMA = 0.7


class ManualDigitsClassifier(pl.LightningModule):
    def __init__(self, fixed):
        super().__init__()
        self.automatic_optimization = False
        self.fixed = fixed
        self.net = mlp(hidden=256)

    def forward(self, x):
        return self.net(x)

    def training_step(self, batch, batch_idx):
        optimizer = self.optimizers()
        xb, yb = batch
        loss = nn.functional.cross_entropy(self(xb), yb)
        optimizer.zero_grad()
        self.manual_backward(loss)
        optimizer.step()
        self.log("train_loss", loss)
        return loss

    def on_train_epoch_end(self):
        if self.fixed:
            self.lr_schedulers().step()     # manual optimisation: the user steps it
        # BUG: nothing here - Lightning does not step schedulers under manual optimisation

    def configure_optimizers(self):
        optimizer = torch.optim.SGD(self.parameters(), lr=LR, momentum=0.9)
        return {"optimizer": optimizer,
                "lr_scheduler": torch.optim.lr_scheduler.ExponentialLR(optimizer, GAMMA)}


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_held, y_held = digits()
    module = ManualDigitsClassifier(fixed)
    mon = fit(module, loader(x, y), steps, **watch)
    mon.held_out_loss, mon.held_out_accuracy = held_out(module, x_held, y_held)
    mon.final_lr = module.trainer.optimizers[0].param_groups[0]["lr"]
    return mon
