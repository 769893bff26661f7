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

TITLE = "Fix adam optimizer"
LINK = "https://github.com/karpathy/convnetjs/pull/70"
EXPECTED = ("LR_TOO_HIGH",)
STEPS = 300
LR = 1e-2


class HandwrittenAdam(torch.optim.Optimizer):
    """Adam (Kingma & Ba, Algorithm 1) written by hand."""

    def __init__(self, params, lr, fixed, betas=(0.9, 0.999), eps=1e-8):
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps))
        self.fixed = fixed

    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if not state:
                    state["t"] = 0
                    state["m"] = torch.zeros_like(p)
                    state["v"] = torch.zeros_like(p)
                state["t"] += 1
                t, m, v = state["t"], state["m"], state["v"]
                m.mul_(beta1).add_(p.grad, alpha=1 - beta1)
                v.mul_(beta2).addcmul_(p.grad, p.grad, value=1 - beta2)
                if self.fixed:
                    m_hat, v_hat = m / (1 - beta1 ** t), v / (1 - beta2 ** t)
                else:
                    m_hat, v_hat = m * (1 - beta1 ** t), v * (1 - beta2 ** t)   # BUG
                p -= group["lr"] * m_hat / (v_hat.sqrt() + group["eps"])


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    optimizer = HandwrittenAdam(model.parameters(), LR, fixed)
    return train_watched(model, optimizer, nn.CrossEntropyLoss(), batches(x, y, steps),
                         **watch)
