"""SGD with Nesterov momentum written by hand as ``v = mu * v + g`` and then
``w = w - lr * g + lr * mu * v``: the look-ahead momentum term is added where it should be
subtracted. After the first step the velocity (about ten gradients' worth at mu 0.9)
outweighs the plain gradient, so each update climbs the loss along the recent gradients
instead of descending: the net works against its own training and never converges.

Reported: "Fix serious bug in nesterov momentum optimizer." -
https://github.com/PaddlePaddle/Paddle/pull/12231 ("This bug will cause the network does
not converge"; the update ``param - gradient * lr + mu * velocity * lr`` corrected to
``param - (gradient + mu * velocity) * lr``; merged). Here the 8x8 digits (400 held out),
an MLP, the hand-written Nesterov SGD at lr 0.05, mu 0.9, 250 steps of 64.

Fix: ``w = w - lr * (g + mu * v)``.

Measured (held-out accuracy): 0.102 with the bug, 0.965 fixed; seeds + 1000: 0.102 vs 0.957.
"""
import torch

from benchmarks.real_bugs._hand_optimizers322 import train_digits

TITLE = "Fix serious bug in nesterov momentum optimizer."
LINK = "https://github.com/PaddlePaddle/Paddle/pull/12231"
EXPECTED = ("LOSS_SIGN_FLIPPED", "NEGATIVE_LEARNING_RATE")
STEPS = 250
LR, MU = 0.05, 0.9


class ScratchNesterov(torch.optim.Optimizer):
    def __init__(self, params, lr, momentum, fixed):
        super().__init__(params, dict(lr=lr, momentum=momentum))
        self.fixed = fixed

    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            lr, mu = group["lr"], group["momentum"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                v = self.state[p].setdefault("velocity", torch.zeros_like(p))
                v.mul_(mu).add_(p.grad)
                if self.fixed:
                    p -= lr * (p.grad + mu * v)
                else:
                    p -= lr * p.grad - lr * mu * v      # BUG: + lr * mu * v on the weights


def run(fixed=False, steps=STEPS, **watch):
    return train_digits(lambda params: ScratchNesterov(params, LR, MU, fixed), steps,
                        **watch)
