"""A LightningDataModule whose ``train_dataloader`` never shuffles, over a training set
stored grouped by class (as many datasets come: one file or folder per label). Every
batch then holds one class, and the classes arrive in the same order every epoch: the
network is pulled towards class 0, then 1, ..., then 9, forgetting each in turn, and ends
each epoch predicting the classes it saw last. The loss printed per batch looks low
(each batch is easy on its own), nothing errs.

Reported: "Shuffling support" -
https://github.com/Lightning-Universe/lightning-transformers/issues/298 (the library's
data module built its training DataLoader without shuffling; on a custom dataset whose
examples came class after class the reporter's model did poorly, with performance spiking
across each epoch, until they overrode ``train_dataloader`` to shuffle). Here: the 8x8 digits
(1,300 training rows sorted by label, batches of 32) in a LightningDataModule, a 64-64-10
MLP under Adam (lr 1e-3) for 400 steps (10 epochs) in a Lightning Trainer. Fix:
``DataLoader(..., shuffle=True)`` in ``train_dataloader``.

**Measured** (497 held-out digits): seed 0, held-out accuracy 0.767 (loss 1.10) for the
bug against 0.887 (0.431) for the fixed twin; every seed shifted by 1000, 0.757 (1.09)
against 0.887 (0.417).
"""
import lightning.pytorch as pl
import torch
from torch import nn

from benchmarks.real_bugs._lit144 import digits, fit, held_out, loader, mlp

TITLE = "Shuffling support"
LINK = "https://github.com/Lightning-Universe/lightning-transformers/issues/298"
EXPECTED = ("BATCHES_OF_ONE_CLASS", "DATA_ORDER_REPEATS")
STEPS = 400


class SortedDigits(pl.LightningDataModule):
    def __init__(self, fixed):
        super().__init__()
        self.fixed = fixed

    def setup(self, stage=None):
        x, y, self.x_held, self.y_held = digits()
        order = torch.argsort(y, stable=True)          # stored grouped by class
        self.x_train, self.y_train = x[order], y[order]

    def train_dataloader(self):
        # BUG: shuffle=False (the default); fixed: shuffle=True
        return loader(self.x_train, self.y_train, shuffle=self.fixed)


class DigitsClassifier(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = mlp()

    def forward(self, x):
        return self.net(x)

    def training_step(self, batch, batch_idx):
        xb, yb = batch
        loss = nn.functional.cross_entropy(self(xb), yb)
        self.log("train_loss", loss)
        return loss

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    data = SortedDigits(fixed)
    data.setup("fit")
    module = DigitsClassifier()
    mon = fit(module, data.train_dataloader(), steps, **watch)
    mon.held_out_loss, mon.held_out_accuracy = held_out(module, data.x_held, data.y_held)
    return mon
