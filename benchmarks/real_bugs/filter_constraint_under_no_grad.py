"""A learnable front-end layer projects its own parameters onto their allowed range inside
``torch.no_grad()`` in ``forward`` and builds its filters from the projected copy: the
filters it applies are no longer connected to the parameters, so the front end never
receives a gradient and stays at its random initialisation for the whole run, while the
layers after it train normally on top of fixed random features. Nothing errors, the loss
falls, and the parameters simply never move.

Reported: "Backpropagation doesn't change weights of the convolutional layer" -
https://github.com/denfed/leaf-audio-pytorch/issues/3 (the reporter: the forward call of
``GaborConstraint`` has ``with torch.no_grad()``, "it appears the convolutional layers
weight doesn't change while backpropagation because of this. However, removing it I see
that weights update"; the maintainer removed the block in pull request #4, "Remove
torch.no_grad call that breaks backprop on the complex conv"). Here a front end of 12
learnable filters over the 64 pixels, each with a centre, a width and a gain clamped to
their ranges in a no_grad block as the report's constraint does, then a ReLU and a
trained classifier. Fix: clamp with differentiable operations (``torch.clamp`` outside
``no_grad``), so the filters stay a function of the parameters.

Measured (300 steps, 297 held-out digits): the bug's front-end parameters unchanged after
training (largest change 0.0), held-out accuracy 0.67; the fixed twin's filter parameters
move (largest change 5.2 pixels) and it reaches 0.75.
"""
import torch
import torch.nn.functional as F
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "Backpropagation doesn't change weights of the convolutional layer"
LINK = "https://github.com/denfed/leaf-audio-pytorch/issues/3"
EXPECTED = ("NO_GRADIENT",)
STEPS = 300
HELD_OUT = 297
FILTERS = 12
PIXELS = 64


class ConstrainedFilterbank(nn.Module):
    """Gaussian windows over the 64 pixels: a centre, a width and a gain per filter."""

    def __init__(self, filters, constrained_under_no_grad):
        super().__init__()
        self.centre = nn.Parameter(torch.rand(filters) * PIXELS)
        self.width = nn.Parameter(2.0 + 6.0 * torch.rand(filters))
        self.gain = nn.Parameter(torch.randn(filters))
        self.no_grad = constrained_under_no_grad

    def constrain(self):
        return (self.centre.clamp(0.0, PIXELS - 1.0), self.width.clamp(1.0, PIXELS / 2),
                self.gain.clamp(-3.0, 3.0))

    def forward(self, x):
        if self.no_grad:
            with torch.no_grad():                       # BUG: the filters lose their graph
                centre, width, gain = self.constrain()
        else:
            centre, width, gain = self.constrain()
        position = torch.arange(PIXELS, dtype=x.dtype)
        windows = gain[:, None] * torch.exp(
            -0.5 * ((position[None, :] - centre[:, None]) / width[:, None]) ** 2)
        return F.linear(x, windows)                     # (N, filters)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    x_train, y_train = x[:-HELD_OUT], y[:-HELD_OUT]
    front = ConstrainedFilterbank(FILTERS, constrained_under_no_grad=not fixed)
    start = [p.detach().clone() for p in front.parameters()]
    model = nn.Sequential(front, nn.ReLU(), nn.Linear(FILTERS, 64), nn.ReLU(), nn.Linear(64, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-2)
    mon = train_watched(model, optimizer, nn.CrossEntropyLoss(),
                        batches(x_train, y_train, steps), **watch)
    with torch.no_grad():
        mon.front_end_change = round(max(float((p - s).abs().max())
                                         for p, s in zip(front.parameters(), start)), 4)
        predicted = model(x[-HELD_OUT:]).argmax(1)
    mon.test_accuracy = round(float((predicted == y[-HELD_OUT:]).float().mean()), 3)
    return mon
