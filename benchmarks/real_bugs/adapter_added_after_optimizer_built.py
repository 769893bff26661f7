"""Bottleneck adapters added to a model after its optimizer was built: ``optimizer =
AdamW(model.parameters())`` collected the parameters the model had then, the base model's;
the adapters are added next and the base is frozen for adapter training. The optimizer
never holds an adapter parameter, and holds only frozen base weights: the adapters get
gradients every step and are never updated, so the model stays the pretrained one.

Reported: "Train T5 with adapter without using Trainer Class didn't update the adapter's
weight" - https://github.com/adapter-hub/adapters/issues/260 (the answer: "it looks like the
optimizer is missing the adapter parameters. Try, to first add the adapter to the model
... and then get the parameters for the optimizer"; the reporter confirmed it solved the
issue). Here an MLP pretrained on the digits 0-4 is adapted to all ten digits with
Houlsby-style bottleneck adapters (down, ReLU, up, residual) after each of its linear
layers, written by hand.

Measured (200 steps, AdamW 1e-2, 297 held-out digits): the bug's loss stays at the
pretrained model's (8.3 at the first step, 7.7 at the last), held-out accuracy 0.46; the
fixed twin, the optimizer built after the adapters were added, reaches loss 0.47 and
accuracy 0.72.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, mlp, train_watched

TITLE = "Train T5 with adapter without using Trainer Class didn't update the adapter's weight"
LINK = "https://github.com/adapter-hub/adapters/issues/260"
EXPECTED = ("OPTIMIZER_MISSING_PARAMS",)
STEPS = 200
HELD_OUT = 297
BOTTLENECK = 32


def pretrained_base(x, y):
    """The model to adapt: an MLP trained on the digits 0-4 only."""
    torch.manual_seed(1)
    base = mlp()
    optimizer = torch.optim.Adam(base.parameters(), lr=1e-2)
    seen = y < 5
    for xb, yb in batches(x[seen], y[seen], 150, seed=1):
        optimizer.zero_grad()
        nn.functional.cross_entropy(base(xb), yb).backward()
        optimizer.step()
    return base


class Adapter(nn.Module):
    """h + up(relu(down(h))), up zero-initialised so the adapter starts as the identity."""

    def __init__(self, width, bottleneck=BOTTLENECK):
        super().__init__()
        self.down = nn.Linear(width, bottleneck)
        self.up = nn.Linear(bottleneck, width)
        nn.init.zeros_(self.up.weight)
        nn.init.zeros_(self.up.bias)

    def forward(self, h):
        return h + self.up(torch.relu(self.down(h)))


def add_adapters(model):
    """After each linear layer, an adapter; the base model frozen (train only adapters)."""
    layers = []
    for layer in model:
        layers.append(layer)
        if isinstance(layer, nn.Linear):
            layers.append(Adapter(layer.out_features))
    for p in model.parameters():
        p.requires_grad_(False)
    return nn.Sequential(*layers)


def run(fixed=False, steps=STEPS, **watch):
    x, y = classification()
    train_x, train_y = x[:-HELD_OUT], y[:-HELD_OUT]
    model = pretrained_base(train_x, train_y)
    torch.manual_seed(0)
    if fixed:
        model = add_adapters(model)
        optimizer = torch.optim.AdamW(
            [p for p in model.parameters() if p.requires_grad], lr=1e-2)
    else:
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)   # BUG: before the adapters
        model = add_adapters(model)
    mon = train_watched(model, optimizer, nn.CrossEntropyLoss(),
                        batches(train_x, train_y, steps), **watch)
    with torch.no_grad():
        predicted = model(x[-HELD_OUT:]).argmax(1)
    mon.test_accuracy = round(float((predicted == y[-HELD_OUT:]).float().mean()), 3)
    return mon
