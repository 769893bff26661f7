"""``Trainer(overfit_batches=10)``, Lightning's debugging switch for "can the model
memorise a few batches", is left in the Trainer of the real training run. Lightning then
trains on only the first 10 batches of the training loader, again and again (it also
turns the loader's shuffling off), so the model memorises 320 rows instead of learning
from the 1,300 it was given. The training loss falls nicely (it is a loss on the rows
being memorised); only data the model has not seen shows the damage. Nothing errs.

Reported: "What does `overfit_batches` do in trainer?" -
https://github.com/Lightning-AI/pytorch-lightning/issues/12668 (a user trained with
``overfit_batches=10`` and found the model's results bad; the flag restricts training
(and validation) to those few batches, it is a debugging aid; the fix is to train
without it). Here: a 64-64-10 MLP on the 8x8 digits (1,300 training rows, batches of
32), SGD lr 0.1 momentum 0.9, 500 optimizer steps in a Lightning Trainer. Fix: no
``overfit_batches``.

**Measured** (497 held-out digits): seed 0, held-out accuracy 0.881 (loss 0.494)
for the bug against 0.920 (0.317) for the fixed twin; every seed shifted by 1000, 0.889
(0.489) against 0.926 (0.302).
"""
import logging
import warnings

import lightning.pytorch as pl
import torch
from torch import nn

from benchmarks.real_bugs._lit144 import digits, held_out, loader, mlp

TITLE = "What does `overfit_batches` do in trainer?"
LINK = "https://github.com/Lightning-AI/pytorch-lightning/issues/12668"
EXPECTED = ("TRAINING_SUBSET_REPEATED", "OVERFITTING")
STEPS = 500
OVERFIT_BATCHES = 10


class Classifier(pl.LightningModule):
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
        return torch.optim.SGD(self.parameters(), lr=0.1, momentum=0.9)


def run(fixed=False, steps=STEPS, **watch):
    from nndebug.integrations.lightning import NNDebugCallback
    torch.manual_seed(0)
    x, y, x_held, y_held = digits()
    module = Classifier()
    for name in ("lightning.pytorch", "lightning.fabric", "lightning"):
        logging.getLogger(name).setLevel(logging.ERROR)
    cb = NNDebugCallback(verbose=False, **watch)
    # BUG: the debugging flag left on; fixed: trained on every batch
    extra = {} if fixed else {"overfit_batches": OVERFIT_BATCHES}
    trainer = pl.Trainer(max_steps=steps, accelerator="cpu", devices=1, logger=False,
                         enable_checkpointing=False, enable_progress_bar=False,
                         enable_model_summary=False, callbacks=[cb], **extra)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", module="lightning")
        trainer.fit(module, loader(x, y))
    mon = cb.monitor
    mon.held_out_loss, mon.held_out_accuracy = held_out(module, x_held, y_held)
    return mon
