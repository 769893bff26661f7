"""RMSprop written by hand whose running average of squared gradients leaves out the
(1 - sqr_mom) weight on the new term: ``sqr_avg = sqr_mom * sqr_avg + g ** 2``. The
"average" becomes a sum of the last ~100 squared gradients, 100x too large, so its root is
10x too large and every step is about a tenth of the intended one. Nothing diverges: the
loss just falls slowly and the run ends far short of where the same learning rate should
take it.

Reported: "16_accel_sgd: Fixed average_sqr_grad function" -
https://github.com/fastai/fastbook/pull/342 ("The 'sqr_avg' returned by the
average_sqr_grad function is missing the (1-sqr_mom) term"; merged). Here the 8x8 digits
(400 held out), an MLP, the hand-written RMSprop (sqr_mom 0.99, eps 1e-5, lr 1e-3, no
bias correction, as the book's), 250 steps of 64.

Fix: ``sqr_avg = sqr_mom * sqr_avg + (1 - sqr_mom) * g ** 2``.

Measured (held-out accuracy): 0.772 with the bug, 0.947 fixed; seeds + 1000: 0.660 vs 0.935.
"""
import torch

from benchmarks.real_bugs._hand_optimizers322 import train_digits

TITLE = "16_accel_sgd: Fixed average_sqr_grad function"
LINK = "https://github.com/fastai/fastbook/pull/342"
EXPECTED = ("LR_TOO_LOW",)
STEPS = 250
LR, SQR_MOM, EPS = 1e-3, 0.99, 1e-5


class ScratchRMSprop(torch.optim.Optimizer):
    def __init__(self, params, lr, fixed, sqr_mom=SQR_MOM, eps=EPS):
        super().__init__(params, dict(lr=lr, sqr_mom=sqr_mom, eps=eps))
        self.fixed = fixed

    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            mom = group["sqr_mom"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                sqr_avg = self.state[p].setdefault("sqr_avg", torch.zeros_like(p))
                if self.fixed:
                    sqr_avg.mul_(mom).addcmul_(p.grad, p.grad, value=1 - mom)
                else:
                    sqr_avg.mul_(mom).addcmul_(p.grad, p.grad)   # BUG: no (1 - sqr_mom)
                p.addcdiv_(p.grad, sqr_avg.sqrt().add_(group["eps"]), value=-group["lr"])


def run(fixed=False, steps=STEPS, **watch):
    return train_digits(lambda params: ScratchRMSprop(params, LR, fixed), steps, **watch)
