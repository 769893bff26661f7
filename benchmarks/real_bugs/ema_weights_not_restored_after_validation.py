"""To validate with the exponential moving average, the training script stores the live
weights, copies the EMA weights into the model, validates, and never restores the stored
weights: from the first validation on, training goes on from the EMA weights, which lag
behind, and every epoch throws the live network back to its own average of many steps ago.

Reported: "[BUG]: Missed to restore model weights in training after validation with EMA
on" - https://github.com/PKU-YuanGroup/Open-Sora-Plan/issues/186 (the validation calls
``ema_model.store(model.parameters())`` and ``ema_model.copy_to(model.parameters())``;
"``ema_model.restore(model.parameters())`` ?" is missing). Here a digits MLP trained by
Adam, an EMA of its parameters (decay 0.995, updated after every step), copied into the
model for a validation after every epoch of 22 steps. Fix: restore the stored weights
after validating.

Measured (14 epochs, 359 held-out digits): the trained model's final validation loss
1.83 with the bug against 0.15 for the fixed twin (its EMA: 0.37).
"""
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "[BUG]: Missed to restore model weights in training after validation with EMA on"
LINK = "https://github.com/PKU-YuanGroup/Open-Sora-Plan/issues/186"
EXPECTED = ("WEIGHTS_REWRITTEN_OUTSIDE_OPTIMIZER",)
EPOCH = 22
STEPS = 14 * EPOCH
DECAY = 0.995


class ShadowEMA:
    """Shadow copies of the parameters with store / copy_to / restore (as in the report)."""

    def __init__(self, parameters):
        self.shadow = [p.detach().clone() for p in parameters]
        self.stored = None

    @torch.no_grad()
    def step(self, parameters):
        for s, p in zip(self.shadow, parameters):
            s.mul_(DECAY).add_(p, alpha=1 - DECAY)

    def store(self, parameters):
        self.stored = [p.detach().clone() for p in parameters]

    @torch.no_grad()
    def copy_to(self, parameters):
        for s, p in zip(self.shadow, parameters):
            p.copy_(s)

    @torch.no_grad()
    def restore(self, parameters):
        for s, p in zip(self.stored, parameters):
            p.copy_(s)


def split():
    x, y = classification()
    order = torch.randperm(len(x), generator=torch.Generator().manual_seed(0))
    cut = int(0.8 * len(x))
    return x[order[:cut]], y[order[:cut]], x[order[cut:]], y[order[cut:]]


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x_train, y_train, x_val, y_val = split()
    model = mlp()
    ema = ShadowEMA(model.parameters())
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    history = []
    with nd.watch(model, optimizer, **watch) as mon:
        for done, (xb, yb) in enumerate(batches(x_train, y_train, steps), start=1):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            ema.step(model.parameters())
            val_loss = None
            if done % EPOCH == 0:
                ema.store(model.parameters())
                ema.copy_to(model.parameters())
                with torch.no_grad():
                    val_loss = F.cross_entropy(model(x_val), y_val)
                history.append(val_loss.item())
                if fixed:
                    ema.restore(model.parameters())
            mon.step(loss, val_loss=val_loss)
    mon.val_history = history
    with torch.no_grad():
        mon.live_loss = F.cross_entropy(model(x_val), y_val).item()
    return mon
