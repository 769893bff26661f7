"""A hand-written SGD whose weight-decay penalty enters the step with the wrong sign: the
step is ``grad - decay * w`` where it should be ``grad + decay * w``, so instead of pulling
every weight towards zero the "decay" pushes it away, by a factor (1 + lr * decay) per
step. Weights the gradient does not hold grow exponentially, the logits with them.

Reported: "Penalty calculation" - https://github.com/andersbll/deeppy/issues/17 (the
reporter: with the penalty subtracted, a negative weight_decay "makes the weights shrink"
and a large positive one makes "the weights explode"; the author: "Wow, this is a huge
mistake", fixed by adding the penalty). The same slip in chainer/chainer#261 ("We should
add the decayed weights to the gradients instead of subtract them"). Here a digits MLP
trained by a small hand-written SGD optimizer with lr 0.5 and decay 0.02.

Measured (400 steps, seed 0): with the penalty subtracted the first layer's weight norm
ends at 319 (5.2 in the twin), the loss reaches 0.00 on some batches but spikes up to 21
and its last 20 steps average 3.10; with the penalty added the last 20 average 0.39. Fix: ``step = grad + decay * w``.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, mlp, train_watched

TITLE = "Penalty calculation"
LINK = "https://github.com/andersbll/deeppy/issues/17"
EXPECTED = ("WEIGHT_DECAY_SIGN_INVERTED",)
STEPS = 400
LR, DECAY = 0.5, 0.02


class DecayedSGD(torch.optim.Optimizer):
    """Plain SGD with an L2 penalty added to the gradient, written by hand."""

    def __init__(self, params, lr, weight_decay, fixed):
        super().__init__(params, dict(lr=lr, weight_decay=weight_decay))
        self.sign = 1.0 if fixed else -1.0          # BUG (fixed=False): penalty subtracted

    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                step = p.grad + self.sign * group["weight_decay"] * p
                p -= group["lr"] * step


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    optimizer = DecayedSGD(model.parameters(), LR, DECAY, fixed)
    return train_watched(model, optimizer, nn.CrossEntropyLoss(), batches(x, y, steps),
                         **watch)
