"""Gradient accumulation written by hand under Lightning's manual optimisation, after the
pattern in Lightning's manual-optimisation docs: ``self.manual_backward(loss)`` on every
micro-batch and ``opt.step(); opt.zero_grad()`` every N-th, with each micro-batch's MEAN
loss backpropagated as it is. The N gradients are summed, not averaged, so every step
applies N times the gradient the learning rate was chosen for (automatic optimisation
divides the loss by ``accumulate_grad_batches`` for you; manual optimisation does not).
Under SGD that is an N-times larger rate: the run trains, far less well, and nothing
errs.

Reported: "manual_backward" - https://github.com/Lightning-AI/pytorch-lightning/issues/12811
(the docs' accumulation example backpropagates each of n batches' losses as they are and
steps every n; the reporter points out that the n gradients are summed and the loss must
be divided by n; the docs example was changed to divide each loss by N, issue #17957 and
PR #17975). Here: a 64-64-10 MLP on the 8x8 digits (1,300 training rows) in micro-
batches of 16, 8 accumulated per step (an effective batch of 128), SGD lr 0.2 with
momentum 0.9 chosen for the averaged gradient, 150 optimizer steps, manual optimisation
in a Lightning Trainer. Fix: backpropagate ``loss / N``.

**Measured** (497 held-out digits): seed 0, held-out accuracy 0.394 (loss 1.60) for the
bug against 0.918 (0.326) for the fixed twin; every seed shifted by 1000, 0.103 (2.32:
the run blew up) against 0.928 (0.300).
"""
import lightning.pytorch as pl
import torch
from torch import nn

from benchmarks.real_bugs._lit144 import digits, fit, held_out, loader, mlp

TITLE = "manual_backward"
LINK = "https://github.com/Lightning-AI/pytorch-lightning/issues/12811"
EXPECTED = ("LR_TOO_HIGH", "ACCUMULATED_LOSS_NOT_AVERAGED")
STEPS = 150
ACCUMULATE = 8
MICRO_BATCH = 16
LR = 0.2


class AccumulatingClassifier(pl.LightningModule):
    def __init__(self, fixed):
        super().__init__()
        self.automatic_optimization = False
        self.fixed = fixed
        self.net = mlp()

    def forward(self, x):
        return self.net(x)

    def training_step(self, batch, batch_idx):
        optimizer = self.optimizers()
        xb, yb = batch
        loss = nn.functional.cross_entropy(self(xb), yb)
        # BUG: the mean loss of each micro-batch as it is; fixed: divided by ACCUMULATE
        self.manual_backward(loss / ACCUMULATE if self.fixed else loss)
        if (batch_idx + 1) % ACCUMULATE == 0:
            optimizer.step()
            optimizer.zero_grad()
        self.log("train_loss", loss)
        return loss

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=LR, momentum=0.9)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_held, y_held = digits()
    module = AccumulatingClassifier(fixed)
    mon = fit(module, loader(x, y, batch_size=MICRO_BATCH), steps, **watch)
    mon.held_out_loss, mon.held_out_accuracy = held_out(module, x_held, y_held)
    return mon
