"""A hand-written Adam that multiplies the moments by their bias corrections instead of
dividing: m_hat = m * (1 - beta1^t), v_hat = v * (1 - beta2^t). Early on (1 - beta2^t) is
tiny, so sqrt(v_hat) is far below the gradient's scale and each step is 10-40 times the
learning rate for the first few hundred steps (about 10x at t = 1, 40x near t = 10, back
to 1.6x only by t = 1000).

Reported: "Fix adam optimizer" - https://github.com/karpathy/convnetjs/pull/70 (the
reporter wondered why Adam "performs so much more worse than Adadelta" on MNIST and found
that, against Algorithm 1 of the Adam paper, "the bias estimates use division instead of
multiplication"; duplicated by PR 107). Here a digits MLP trained by the hand-written Adam
at lr 1e-2, betas 0.9/0.999.

Measured (300 steps, seed 0): the loss jumps to 4.72 in the first steps and its last 20
steps average 1.11, accuracy on the 1797 digits 0.55; dividing, 0.04 and 0.99. Fix: divide by
``1 - beta ** t``.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, mlp, train_watched
from benchmarks.real_bugs._handwritten_adam import HandwrittenAdam

TITLE = "Fix adam optimizer"
LINK = "https://github.com/karpathy/convnetjs/pull/70"
EXPECTED = ("LR_TOO_HIGH",)
STEPS = 300
LR = 1e-2


class BiasCorrectionMultiplied(HandwrittenAdam):
    """The report's Adam: the moments multiplied by their bias corrections."""

    def apply(self, p, m, v, t, group):
        if self.fixed:
            return super().apply(p, m, v, t, group)
        beta1, beta2 = group["betas"]
        m_hat, v_hat = m * (1 - beta1 ** t), v * (1 - beta2 ** t)   # BUG
        p -= group["lr"] * m_hat / (v_hat.sqrt() + group["eps"])


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    optimizer = BiasCorrectionMultiplied(model.parameters(), LR, fixed)
    return train_watched(model, optimizer, nn.CrossEntropyLoss(), batches(x, y, steps),
                         **watch)
