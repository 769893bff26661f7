"""An Adagrad trainer written by hand that clears each gradient itself once it has used it
("zero out gradient so that we can begin accumulating anew"), but clears it at the
parameter's index instead of the element's: one entry of each weight tensor is zeroed and
every other gradient keeps the sum of all the batches so far. Each step then moves along
the running total of every past gradient, the same stale direction again and again, and
the network overshoots and settles worse than its twin.

Reported: "Bug in AdagradTrainer" - https://github.com/cbovar/ConvNetSharp/issues/29
("the correct index to use is **j**, not **i**"; fixed by the maintainer). Here the 8x8
digits (400 held out), an MLP, the hand-written Adagrad (lr 0.05, eps 1e-8) whose step
also clears the gradients (the loop calls no zero_grad), 250 steps of 64.

Fix: clear every element of the gradient (``p.grad.zero_()``, index j over the elements).

Measured (held-out accuracy): 0.945 with the bug, 0.975 fixed; seeds + 1000: 0.947 vs 0.967.
"""
import torch

from benchmarks.real_bugs._hand_optimizers322 import train_digits

TITLE = "Bug in AdagradTrainer"
LINK = "https://github.com/cbovar/ConvNetSharp/issues/29"
EXPECTED = ("GRADIENTS_ACCUMULATING",)
STEPS = 250
LR, EPS = 0.05, 1e-8


class ScratchAdagrad(torch.optim.Optimizer):
    """Adagrad whose step also clears the gradients it used, as the report's trainer."""

    def __init__(self, params, lr, fixed, eps=EPS):
        super().__init__(params, dict(lr=lr, eps=eps))
        self.fixed = fixed

    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            for i, p in enumerate(group["params"]):
                if p.grad is None:
                    continue
                g = p.grad
                sum_sq = self.state[p].setdefault("sum_sq", torch.zeros_like(p))
                sum_sq.addcmul_(g, g)
                p.addcdiv_(g, sum_sq.sqrt().add_(group["eps"]), value=-group["lr"])
                if self.fixed:
                    g.zero_()
                else:
                    g.view(-1)[i] = 0.0        # BUG: the parameter's index, not each element's


def run(fixed=False, steps=STEPS, **watch):
    return train_digits(lambda params: ScratchAdagrad(params, LR, fixed), steps,
                        zero_grad=False, **watch)
