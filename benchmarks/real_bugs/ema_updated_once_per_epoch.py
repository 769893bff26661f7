"""The exponential moving average of the weights is updated once per epoch, at the end of
the training loop, where it must be updated after every optimizer step: with a decay meant
for per-step updates the average barely moves away from the initial weights, and the model
that is validated (the average) stays close to an untrained one while the trained model
learns well.

Reported: "[BUG] ModelEma doesn't update." -
https://github.com/huggingface/pytorch-image-models/issues/1831 ("at the end of the
training loop: model_ema.update(model) ... the results are very poor for EMA model, as
it's not updated at all"; the maintainer: "the ema needs to be updated every step as per
the train.py"). Here a digits MLP with Adam, an EMA copy (decay 0.99) validated after
every epoch as timm's train.py does, and the update called after each epoch of 22 steps.
Fix: update the EMA after every optimizer step.
"""
import copy

import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "[BUG] ModelEma doesn't update."
LINK = "https://github.com/huggingface/pytorch-image-models/issues/1831"
EXPECTED = ("VALIDATION_NEVER_IMPROVED",)
STEPS = 264          # twelve epochs
EPOCH = 22           # batches of 64 in the training split
DECAY = 0.99


class ModelEma:
    """A moving average of a model's weights (timm's ModelEmaV2, in short)."""

    def __init__(self, model, decay):
        self.module = copy.deepcopy(model).eval()
        self.decay = decay
        for p in self.module.parameters():
            p.requires_grad_(False)

    @torch.no_grad()
    def update(self, model):
        for ema, current in zip(self.module.state_dict().values(),
                                model.state_dict().values()):
            ema.mul_(self.decay).add_(current, alpha=1 - self.decay)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    order = torch.randperm(len(x), generator=torch.Generator().manual_seed(0))
    cut = int(0.8 * len(x))
    x_train, y_train = x[order[:cut]], y[order[:cut]]
    x_val, y_val = x[order[cut:]], y[order[cut:]]
    model = mlp()
    ema = ModelEma(model, DECAY)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for done, (xb, yb) in enumerate(batches(x_train, y_train, steps), start=1):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            if fixed:
                ema.update(model)
            val_loss = None
            if done % EPOCH == 0 or done == steps:
                if not fixed:
                    ema.update(model)            # BUG: once per epoch, with a per-step decay
                with torch.no_grad():
                    val_loss = F.cross_entropy(ema.module(x_val), y_val)
            mon.step(loss, val_loss=val_loss)
    return mon
