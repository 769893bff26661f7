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

TITLE = "Fix the Adam gradient optimizer"
LINK = "https://github.com/oracle/tribuo/pull/401"
EXPECTED = ("LR_TOO_LOW",)
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
                m_hat = m / (1 - beta1 ** t)
                v_hat = v / (1 - beta2 ** t)
                if self.fixed:
                    p -= group["lr"] * m_hat / (v_hat.sqrt() + group["eps"])
                else:
                    p -= group["lr"] * m_hat * (v_hat.sqrt() + group["eps"])   # BUG


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    optimizer = HandwrittenAdam(model.parameters(), LR, fixed)
    return train_watched(model, optimizer, nn.CrossEntropyLoss(), batches(x, y, steps),
                         **watch)
