"""Resuming a run that keeps an EMA of its weights from a checkpoint written during
validation, while the EMA average had been copied into the model (``ema.store(model)``;
``ema.copy_to(model)``; validate; save; ``restore`` only at the next training epoch). The
checkpoint's model weights are therefore the EMA average. On resume the model loads them,
the EMA's state is loaded too, and ``ema.store(model)`` is called again at the start of the
fit: it overwrites the stored raw weights with the average, so the later ``restore`` is a
no-op and training silently continues from the EMA average instead of the raw weights (and
with the Adam state of the raw weights).

Reported: "Fix EMA callback: resume training from the raw weights, not the EMA a[verage]" -
https://github.com/atomistic-machine-learning/schnetpack/pull/785 ("A run resumed from such
a checkpoint therefore loads the EMA average as its model weights, and on_fit_start
immediately called store(), overwriting the stored raw weights - so the subsequent
restore() was a no-op and training silently continued from the EMA average"; the reviewer:
"pre-fix resume spiked train_loss whereas post-fix it continues smoothly"). Here a digits
MLP trains 100 steps with Adam 1e-3 and an EMA of decay 0.99; its checkpoint is written
the schnetpack way, and the run resumes for 150 steps.

Measured (150 resumed steps, 297 held-out digits): the bug's resumed loss starts at 1.76
(the average lags the raw weights: 100 steps at decay 0.99 still hold 37% of the random
start) against the fixed twin's 0.77; after 150 steps the bug's last 10 steps average 0.32
against 0.21, held-out accuracy 0.855 against 0.865: the progress of the first run is
partly thrown away. Fix: on resume, put
the stored raw weights back in the model (``ema.restore(model)`` before any new ``store``),
or save the raw weights as the checkpoint's model weights and the average beside them.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "Fix EMA callback: resume training from the raw weights, not the EMA a…"
LINK = "https://github.com/atomistic-machine-learning/schnetpack/pull/785"
EXPECTED = ("RESUMED_FROM_AVERAGED_WEIGHTS",)
STEPS = 150
FIRST_STEPS = 100
DECAY = 0.99
HELD_OUT = 297


class EMA:
    """As torch_ema's ExponentialMovingAverage: shadow, store, copy_to, restore."""

    def __init__(self, parameters, decay):
        self.decay = decay
        self.shadow = [p.detach().clone() for p in parameters]
        self.collected = None

    @torch.no_grad()
    def update(self, parameters):
        for s, p in zip(self.shadow, parameters):
            s.mul_(self.decay).add_(p, alpha=1 - self.decay)

    def store(self, parameters):
        self.collected = [p.detach().clone() for p in parameters]

    @torch.no_grad()
    def copy_to(self, parameters):
        for s, p in zip(self.shadow, parameters):
            p.copy_(s)

    @torch.no_grad()
    def restore(self, parameters):
        for c, p in zip(self.collected, parameters):
            p.copy_(c)

    def state_dict(self):
        return {"shadow": [s.clone() for s in self.shadow],
                "collected": [c.clone() for c in self.collected]}

    def load_state_dict(self, state):
        self.shadow = [s.clone() for s in state["shadow"]]
        self.collected = [c.clone() for c in state["collected"]]


def first_run(x, y):
    """Train, then validate on the EMA weights and checkpoint there (no restore yet)."""
    model = mlp(64, 128, 10)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    ema = EMA(model.parameters(), DECAY)
    for xb, yb in batches(x, y, FIRST_STEPS, seed=1):
        optimizer.zero_grad()
        nn.functional.cross_entropy(model(xb), yb).backward()
        optimizer.step()
        ema.update(model.parameters())
    ema.store(model.parameters())            # on_validation_epoch_start
    ema.copy_to(model.parameters())
    return {"model": {k: v.clone() for k, v in model.state_dict().items()},
            "optimizer": optimizer.state_dict(), "ema": ema.state_dict()}


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    x_train, y_train = x[:-HELD_OUT], y[:-HELD_OUT]
    checkpoint = first_run(x_train, y_train)
    model = mlp(64, 128, 10)
    model.load_state_dict(checkpoint["model"])          # the EMA average
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    optimizer.load_state_dict(checkpoint["optimizer"])
    ema = EMA(model.parameters(), DECAY)
    ema.load_state_dict(checkpoint["ema"])
    if fixed:
        ema.restore(model.parameters())                 # the raw weights back first
    ema.store(model.parameters())                       # BUG (unfixed): overwrites the raw
    ema.copy_to(model.parameters())                     # weights kept in the EMA's state
    ema.restore(model.parameters())                     # the next epoch: a no-op when buggy
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x_train, y_train, steps):
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            ema.update(model.parameters())
            mon.step(loss)
    with torch.no_grad():
        predicted = model(x[-HELD_OUT:]).argmax(1)
    mon.test_accuracy = round(float((predicted == y[-HELD_OUT:]).float().mean()), 3)
    return mon
