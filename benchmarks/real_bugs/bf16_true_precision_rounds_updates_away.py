"""``Trainer(precision="bf16-true")`` chosen to save memory: Lightning casts the
LightningModule's weights themselves to bfloat16 (no float32 master copy, unlike
``"bf16-mixed"``). bfloat16 keeps 8 bits of mantissa, so a weight near 0.1 cannot move
by less than about 0.0004: every update smaller than half that spacing rounds back to
the old value. With a small Adam learning rate most of the updates are that small; the loss
still falls a little (the few large updates land), the run looks slow rather than
broken, and nothing errs.

Reported: "Create FP32 master copy of weights for mixed-precision training" -
https://github.com/workofart/ml-by-hand/pull/85 (weights kept in bf16 with the update
written back to bf16: at the project's learning rate each update rounded back to the old
weight, and after 100 steps 0 of 768 weights had moved; the fix keeps float32 master
weights and casts a bf16 copy for the forward pass). The report's framework is its own;
here the same storage comes from Lightning's ``precision="bf16-true"``. Set-up: a
64-64-10 MLP on the 8x8 digits (1,300 training rows, batches of 32), Adam lr 1.5e-4
(updates of about 1.5e-4 per weight, under bf16's spacing for most weights), 800
optimizer steps in a Lightning Trainer. Fix: ``precision="bf16-mixed"``
(float32 weights, bf16 autocast).

**Measured** (497 held-out digits, evaluated in float32): seed 0, held-out
accuracy 0.680 (loss 2.07) for the bug against 0.831 (1.16) for the fixed twin; every
seed shifted by 1000, 0.636 (2.05) against 0.823 (1.09).
"""
import logging
import warnings

import lightning.pytorch as pl
import torch
from torch import nn

from benchmarks.real_bugs._lit144 import digits, held_out, loader, mlp

TITLE = "Create FP32 master copy of weights for mixed-precision training"
LINK = "https://github.com/workofart/ml-by-hand/pull/85"
EXPECTED = ("UPDATES_ROUNDED_AWAY",)
STEPS = 800
LR = 1.5e-4


class Classifier(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = mlp()

    def forward(self, x):
        return self.net(x)

    def training_step(self, batch, batch_idx):
        xb, yb = batch
        loss = nn.functional.cross_entropy(self(xb).float(), yb)
        self.log("train_loss", loss)
        return loss

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=LR)


def run(fixed=False, steps=STEPS, **watch):
    from nndebug.integrations.lightning import NNDebugCallback
    torch.manual_seed(0)
    x, y, x_held, y_held = digits()
    module = Classifier()
    for name in ("lightning.pytorch", "lightning.fabric", "lightning"):
        logging.getLogger(name).setLevel(logging.ERROR)
    cb = NNDebugCallback(verbose=False, **watch)
    # BUG: "bf16-true" stores the weights in bfloat16; fixed: "bf16-mixed"
    trainer = pl.Trainer(max_steps=steps, accelerator="cpu", devices=1, logger=False,
                         enable_checkpointing=False, enable_progress_bar=False,
                         enable_model_summary=False,
                         precision="bf16-mixed" if fixed else "bf16-true",
                         callbacks=[cb])
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", module="lightning")
        trainer.fit(module, loader(x, y))
    mon = cb.monitor
    module.float()
    mon.held_out_loss, mon.held_out_accuracy = held_out(module, x_held, y_held)
    return mon
