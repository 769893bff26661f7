"""A helper that freezes and unfreezes a network only touches the parameters that are
currently trainable: ``for p in self.parameters(): if p.requires_grad: p.requires_grad =
trainable``. Freezing works; unfreezing afterwards does nothing, since every parameter now
has ``requires_grad`` False and the loop skips it. A fine-tuning schedule that trains the
new head first with the encoder frozen, then calls ``set_trainable(True)`` to fine-tune
everything, silently keeps the encoder frozen for the rest of the run.

Reported: "Model parameters cannot be trainable once they become requires_grad=False" -
https://github.com/nttcslab/byol-a/issues/7 (the maintainer, labelled bug: in
``set_trainable`` "``if p.requires_grad`` has to be removed"). Here an encoder pretrained
on the digits 0-4, fine-tuned with a new head on all ten digits: 60 steps with the encoder
frozen, then ``set_trainable(True)`` and 340 steps meant to fine-tune it too. Fix: set
``p.requires_grad = trainable`` on every parameter.

Measured (400 steps, 297 held-out digits): the bug's encoder unchanged after the unfreeze
(largest change 0.0), held-out accuracy 0.62; the fixed twin's encoder fine-tuned (largest
change 0.27), 0.87.
"""
import torch
import torch.nn.functional as F
from torch import nn

from benchmarks.real_bugs._common import batches, classification

TITLE = "Model parameters cannot be trainable once they become requires_grad=False"
LINK = "https://github.com/nttcslab/byol-a/issues/7"
EXPECTED = ("FROZEN_PARAMETERS",)
STEPS = 400
HELD_OUT = 297
PRETRAIN_STEPS = 150
HEAD_ONLY_STEPS = 60


class Encoder(nn.Module):
    def __init__(self, skip_frozen):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU())
        self.skip_frozen = skip_frozen

    def forward(self, x):
        return self.features(x)

    def set_trainable(self, trainable=False):
        for p in self.parameters():
            if p.requires_grad or not self.skip_frozen:   # BUG: a frozen one is never reached
                p.requires_grad = trainable


def pretrained_encoder(x, y, skip_frozen):
    """The encoder trained on the digits 0-4 first (the 'pretrained' model)."""
    encoder = Encoder(skip_frozen)
    head = nn.Linear(64, 5)
    optimizer = torch.optim.Adam([*encoder.parameters(), *head.parameters()], lr=1e-3)
    for xb, yb in batches(x[y < 5], y[y < 5], PRETRAIN_STEPS, seed=1):
        optimizer.zero_grad()
        F.cross_entropy(head(encoder(xb)), yb).backward()
        optimizer.step()
    return encoder


def run(fixed=False, steps=STEPS, **watch):
    import nndebug as nd
    torch.manual_seed(0)
    x, y = classification()
    x_train, y_train = x[:-HELD_OUT], y[:-HELD_OUT]
    encoder = pretrained_encoder(x_train, y_train, skip_frozen=not fixed)
    model = nn.Sequential(encoder, nn.Linear(64, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    encoder.set_trainable(False)                          # warm the new head up first
    start = [p.detach().clone() for p in encoder.parameters()]
    with nd.watch(model, optimizer, **watch) as mon:
        for step, (xb, yb) in enumerate(batches(x_train, y_train, steps)):
            if step == HEAD_ONLY_STEPS:
                encoder.set_trainable(True)               # then fine-tune everything
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        mon.encoder_change = round(max(float((p - s).abs().max())
                                       for p, s in zip(encoder.parameters(), start)), 4)
        predicted = model(x[-HELD_OUT:]).argmax(1)
    mon.test_accuracy = round(float((predicted == y[-HELD_OUT:]).float().mean()), 3)
    return mon
