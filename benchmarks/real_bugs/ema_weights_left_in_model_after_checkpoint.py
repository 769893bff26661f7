"""Each checkpoint copies the exponential moving average of the weights INTO the model
being trained (to save the averaged weights), and the model's own weights are never put
back: training carries on from the lagging average after every save, so each save throws
away the progress the average has not caught up with yet, and training slows to the
average's pace.

Reported: "Restore non-EMA weights after saving checkpoint" -
https://github.com/harubaru/waifu-diffusion/pull/31 ("whenever `save_checkpoint()` is
called, the EMA parameters are copied to the UNet. However, the original parameters are not
restored, meaning that training continues on the EMA parameters ... training would be
impacted by the frequency of `args.save_steps`"; merged, adding store/restore). Here a
digits MLP with Adam, an EMA (decay 0.99) updated after every step, and a checkpoint every
25 steps that copies the average into the model before saving it.
Measured on 500 held-out digits (seed 0, 200 steps): 81.2% accuracy with the average left
in the model after each save, 90.0% with the weights restored.
Fix: store the model's weights before copying the average in and restore them after the
save.
"""
import io

import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "Restore non-EMA weights after saving checkpoint"
LINK = "https://github.com/harubaru/waifu-diffusion/pull/31"
EXPECTED = ("WEIGHTS_REWRITTEN_OUTSIDE_OPTIMIZER",)
STEPS = 200
HELD_OUT = 500
DECAY = 0.99
SAVE_STEPS = 25


class EMAModel:
    """Shadow copies of the parameters, averaged after each step (diffusers' EMAModel, in
    short): copy_to() writes them into a model, store()/restore() keep its own weights."""

    def __init__(self, parameters, decay):
        self.shadow = [p.detach().clone() for p in parameters]
        self.decay = decay
        self.stored = None

    @torch.no_grad()
    def step(self, parameters):
        for s, p in zip(self.shadow, parameters):
            s.mul_(self.decay).add_(p, alpha=1 - self.decay)

    @torch.no_grad()
    def copy_to(self, parameters):
        for s, p in zip(self.shadow, parameters):
            p.copy_(s)

    def store(self, parameters):
        self.stored = [p.detach().clone() for p in parameters]

    @torch.no_grad()
    def restore(self, parameters):
        for s, p in zip(self.stored, parameters):
            p.copy_(s)


def save_checkpoint(model, ema, fixed):
    if fixed:
        ema.store(model.parameters())
    ema.copy_to(model.parameters())          # the saved weights are the average
    torch.save(model.state_dict(), io.BytesIO())
    if fixed:
        ema.restore(model.parameters())       # BUG (unfixed): never put back


def train(fixed=False, steps=STEPS, **watch):
    """The monitor and the trained model."""
    torch.manual_seed(0)
    x, y = classification()
    x_train, y_train = x[:-HELD_OUT], y[:-HELD_OUT]
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
    ema = EMAModel(model.parameters(), DECAY)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for done, (xb, yb) in enumerate(batches(x_train, y_train, steps), start=1):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            ema.step(model.parameters())
            if done % SAVE_STEPS == 0:
                save_checkpoint(model, ema, fixed)
            mon.step(loss)
    return mon, model


def run(fixed=False, steps=STEPS, **watch):
    return train(fixed, steps, **watch)[0]


def held_out_accuracy(fixed):
    _, model = train(fixed)
    x, y = classification()
    with torch.no_grad():
        return (model(x[-HELD_OUT:]).argmax(1) == y[-HELD_OUT:]).float().mean().item()


if __name__ == "__main__":
    for fixed in (False, True):
        print("fixed" if fixed else "bug", held_out_accuracy(fixed))
