"""Layer-wise learning-rate decay applied on every optimizer step instead of once: each
step multiplies every layer's learning rate by its decay factor again, so the rates of the
lower layers fall exponentially to zero within a few dozen steps and only the head goes on
training, on features that stopped changing.

Reported: "The learning rate warms up to the preset value during training and quickly
becomes 0" - https://github.com/jaehyunnn/ViTPose_pytorch/issues/20 ("the learning rate
warms up to the preset value during training and quickly becomes 0, but the training is
still ongoing"; the author: "LayerDecayOptimizer was incorrectly applying layer decay every
step instead of once at initialization, causing LR to exponentially decay to zero. Fixed").
Here an MLP on the digits with one parameter group per layer and a decay of 0.75 per layer
below the head. Fix: scale each group's learning rate once, when the optimizer is built.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = ("The learning rate warms up to the preset value during training and quickly "
         "becomes 0")
LINK = "https://github.com/jaehyunnn/ViTPose_pytorch/issues/20"
EXPECTED = ("LR_TOO_LOW", "PARAMS_NOT_UPDATING")
STEPS = 150
LR = 0.05
DECAY = 0.75


class LayerDecayOptimizer:
    """Wraps an optimizer whose groups are the layers, bottom first, head last."""

    def __init__(self, optimizer, every_step):
        self.optimizer, self.every_step = optimizer, every_step
        depth = len(optimizer.param_groups) - 1
        self.rates = [DECAY ** (depth - i) for i in range(depth + 1)]
        if not every_step:
            self._decay()                      # the fix: once, at initialisation

    def _decay(self):
        for group, rate in zip(self.optimizer.param_groups, self.rates):
            group["lr"] *= rate

    def zero_grad(self):
        self.optimizer.zero_grad()

    def step(self):
        if self.every_step:
            self._decay()                      # BUG: compounds on every step
        self.optimizer.step()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    layers = [nn.Linear(64, 64), nn.Linear(64, 64), nn.Linear(64, 10)]
    model = nn.Sequential(layers[0], nn.ReLU(), layers[1], nn.ReLU(), layers[2])
    inner = torch.optim.SGD([{"params": layer.parameters()} for layer in layers], lr=LR,
                            momentum=0.9)
    optimizer = LayerDecayOptimizer(inner, every_step=not fixed)
    loss_fn = nn.CrossEntropyLoss()
    return train_watched(model, inner, loss_fn, batches(x, y, steps), stepped_by=optimizer,
                         **watch)
