"""A LightningModule that was put in eval mode before ``trainer.fit`` - here to print the
untrained model's held-out accuracy first - trains in eval mode from start to end:
Lightning (2.2 and later) keeps the train/eval mode it finds and does not switch the
module to ``train()`` for ``training_step``. Its batch-norm layers normalise with running
statistics that never update (mean 0, variance 1: no normalisation at all) and dropout is
off. The network was built around batch norm - its first layer standardises the pixels,
given on a 0..4 scale - so in eval mode they go into the weights unstandardised, at a
rate chosen for a batch-normalised network. It trains, poorly, and nothing errs.

Reported: "Switching into training mode in training_step" -
https://github.com/Lightning-AI/pytorch-lightning/issues/20216 (a module put
in eval mode by mistake stays in eval mode through ``training_step``, Lightning never
switching it back; a docs change saying so followed, PR #20716: the user must call
``model.train()`` - or leave the mode alone - before ``fit``). Here: the 8x8 digits, pixels on a 0..4 scale (counts / 4; 1,300 training
rows, batches of 32), BatchNorm1d(64) - Linear(64, 128) - BatchNorm1d - ReLU - Dropout(0.2)
- Linear(128, 10) under SGD (lr 0.15, momentum 0.9) for 400 steps in a Lightning Trainer,
after ``model.eval()`` for a first held-out score. Fix: ``model.train()`` after that
score.

**Measured** (497 held-out digits): seed 0, held-out accuracy 0.849 (loss 0.958) for the
bug against 0.952 (0.174) for the fixed twin; every seed shifted by 1000, 0.745 (2.59)
against 0.928 (0.261). (Untrained, both score about 0.06-0.09.)
"""
import lightning.pytorch as pl
import torch
from torch import nn

from benchmarks.real_bugs._lit144 import digits, fit, held_out, loader

TITLE = "Switching into training mode in training_step"
LINK = "https://github.com/Lightning-AI/pytorch-lightning/issues/20216"
EXPECTED = ("TRAINING_IN_EVAL_MODE",)
STEPS = 400
PIXEL_SCALE = 4.0         # pixels on a 0..4 scale (the recorded counts 0..16, / 4)
LR = 0.15


class BatchNormClassifier(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.BatchNorm1d(64), nn.Linear(64, 128), nn.BatchNorm1d(128),
                                 nn.ReLU(), nn.Dropout(0.2), nn.Linear(128, 10))

    def forward(self, x):
        return self.net(x)

    def training_step(self, batch, batch_idx):
        xb, yb = batch
        loss = nn.functional.cross_entropy(self(xb), yb)
        self.log("train_loss", loss)
        return loss

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=LR, momentum=0.9)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_held, y_held = digits()
    x, x_held = x * PIXEL_SCALE, x_held * PIXEL_SCALE
    module = BatchNormClassifier()
    module.eval()                                   # a first look at the untrained model
    _, untrained_accuracy = held_out(module, x_held, y_held)
    if fixed:
        module.train()                              # BUG: missing - fit keeps eval mode
    mon = fit(module, loader(x, y), steps, **watch)
    mon.held_out_untrained_accuracy = untrained_accuracy
    mon.held_out_loss, mon.held_out_accuracy = held_out(module, x_held, y_held)
    return mon
