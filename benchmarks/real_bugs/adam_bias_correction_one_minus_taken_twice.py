"""A hand-written Adam-family optimizer whose bias corrections take "one minus" twice: the
code computes ``bias_correction = 1 - beta ** t`` and then divides the moment by ``1 -
bias_correction``, which is ``beta ** t``. Instead of growing the early moments towards
their true scale (dividing by 0.1, 0.19, ...) and then leaving them alone, it divides by a
number that keeps SHRINKING: the first moment is multiplied by 0.9^-t (about 37,000 at t =
100) while the second moment's root is multiplied only by 0.999^-t/2. The effective step
grows about 11% every step, whatever the learning rate: training goes fine for a few dozen
steps, then the weights are thrown off and the loss explodes. No exception is raised, and
with a smaller learning rate the explosion is only later.

Reported: "AdamG has serious numerical instabilities" -
https://github.com/kozistr/pytorch_optimizer/issues/305 (the reporter found that with
pytorch_optimizer's AdamG "no matter what hyperparameters you use ... or what model
architecture ... the gradients/losses will explode somewhere around optimizer step
100-200", while any other optimizer trained stably; in the fix,
https://github.com/kozistr/pytorch_optimizer/pull/308, they found "we had accidentally
duplicated the minus-one operation in the bias correction steps" and removing it fixed the
training). Here: an MLP on 1,300 of the 8x8 digits trained by Adam's moments with the
doubled "one minus" (AdamG's own step-size rule is left out: the bug lives in the
moments), lr 1e-3, betas 0.9/0.999; 497 digits held out. Fix: divide by ``bias_correction``.

Measured (300 steps, batch 64): seed 0, held-out accuracy 0.09 for the bug against
0.93 for the fixed twin; seeds shifted by 1000, 0.10 against 0.93.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._opt171 import accuracy, batches, model, split

TITLE = "AdamG has serious numerical instabilities"
LINK = "https://github.com/kozistr/pytorch_optimizer/issues/305"
# written with the code ADAM_BIAS_CORRECTION_INVERTED; the rule built for it (rules/adam_step_bound.py)
# names the cause ADAM_STEP_EXCEEDS_RATE
EXPECTED = ("LR_TOO_HIGH", "ADAM_STEP_EXCEEDS_RATE")
STEPS = 300
LR = 1e-3


class DoubledOneMinusAdam(torch.optim.Optimizer):
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
                    state["step"] = 0
                    state["m"] = torch.zeros_like(p)
                    state["v"] = torch.zeros_like(p)
                state["step"] += 1
                t, m, v = state["step"], state["m"], state["v"]
                m.mul_(beta1).add_(p.grad, alpha=1 - beta1)
                v.mul_(beta2).addcmul_(p.grad, p.grad, value=1 - beta2)
                bias_correction1 = 1 - beta1 ** t
                bias_correction2 = 1 - beta2 ** t
                if self.fixed:
                    m_hat, v_hat = m / bias_correction1, v / bias_correction2
                else:       # BUG: "one minus" again: divides by beta ** t
                    m_hat, v_hat = m / (1 - bias_correction1), v / (1 - bias_correction2)
                p.addcdiv_(m_hat, v_hat.sqrt().add_(group["eps"]), value=-group["lr"])


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_held, y_held = split()
    net = model()
    optimizer = DoubledOneMinusAdam(net.parameters(), lr=LR, fixed=fixed)
    loss_fn = torch.nn.CrossEntropyLoss()
    with nd.watch(net, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(net(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(net, x_held, y_held)
    return mon
