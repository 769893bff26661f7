"""A hand-written Adam that multiplies the first moment by the root of the second moment
instead of dividing by it: the step is lr * m * sqrt(v), about lr * g * |g|, where Adam's
is about lr * sign(g). With gradients of 1e-2 to 1e-1 every step is 10-100 times smaller
than the learning rate, and smaller still as the gradients shrink: training crawls.

Reported: "Fix the Adam gradient optimizer" - https://github.com/oracle/tribuo/pull/401
("The optimizer was multiplying by the squared gradient accumulator rather than dividing
by it, this is fixed now"; merged). Here a digits MLP trained by a hand-written Adam
(betas 0.9/0.999, bias-corrected, eps 1e-8) at lr 1e-2.

Measured (300 steps, seed 0): the loss stays at chance (2.32 at the start, 2.31 over the
last 20 steps), accuracy on the 1797 digits 0.10; dividing, it falls to 0.04 (0.99). Fix: divide,
``p -= lr * m_hat / (sqrt(v_hat) + eps)``.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, mlp, train_watched
from benchmarks.real_bugs._handwritten_adam import HandwrittenAdam

TITLE = "Fix the Adam gradient optimizer"
LINK = "https://github.com/oracle/tribuo/pull/401"
EXPECTED = ("LR_TOO_LOW",)
STEPS = 300
LR = 1e-2


class MultipliesBySecondMoment(HandwrittenAdam):
    """The report's Adam: the first moment multiplied by the root of the second."""

    def apply(self, p, m, v, t, group):
        if self.fixed:
            return super().apply(p, m, v, t, group)
        beta1, beta2 = group["betas"]
        m_hat = m / (1 - beta1 ** t)
        v_hat = v / (1 - beta2 ** t)
        p -= group["lr"] * m_hat * (v_hat.sqrt() + group["eps"])   # BUG


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    optimizer = MultipliesBySecondMoment(model.parameters(), LR, fixed)
    return train_watched(model, optimizer, nn.CrossEntropyLoss(), batches(x, y, steps),
                         **watch)
