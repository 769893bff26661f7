"""A hand-written Adam (a RAdam's Adam branch) that bias-corrects the first moment IN PLACE:
``exp_avg.div_(1 - beta1 ** t)`` instead of ``m_hat = exp_avg / (1 - beta1 ** t)``. The
running average itself is rescaled every step, and the next step decays and corrects the
already corrected value again, so the corrections compound: after ten steps the first
moment is about 150 times the gradient's scale, after thirty about 2,000,000 times (the
product of 1 / (1 - 0.9^t) over t). The step is that moment over the root of the second
moment, so the early updates are thousands of learning rates long and throw the weights far
out; then the compounding stops (the correction tends to 1) and the optimizer carries on
from wherever the weights landed. Nothing errors: the moments stay finite.

Reported: "Inplace bias correction" - https://github.com/frgfm/holocron/issues/1 (the
reporter pointed at the line of holocron's RAdam that divides ``exp_avg`` by its bias
correction in place, "so it affects exp_avg in the next steps (bias correction
accumulates)", unlike Adam's Algorithm 1 which corrects a copy each step; the author had
spent hours hunting a training problem to the same line and fixed it by correcting out of
place). Here: an MLP on 1,300 of the 8x8 digits, the hand-written Adam at lr 1e-3, betas
0.9/0.999; 497 digits held out. Fix: ``m_hat = exp_avg / (1 - beta1 ** t)`` (a new tensor).

Measured (300 steps, batch 64): seed 0, held-out accuracy 0.49 for the bug against
0.93 for the fixed twin; seeds shifted by 1000, 0.60 against 0.93.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._opt171 import accuracy, batches, model, split

TITLE = "Inplace bias correction"
LINK = "https://github.com/frgfm/holocron/issues/1"
# written with the code ADAM_MOMENT_CORRECTED_IN_PLACE; the rule built for it (rules/adam_step_bound.py)
# names the cause ADAM_STEP_EXCEEDS_RATE
EXPECTED = ("LR_TOO_HIGH", "ADAM_STEP_EXCEEDS_RATE")
STEPS = 300
LR = 1e-3


class InPlaceCorrectedAdam(torch.optim.Optimizer):
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
                    state["exp_avg"] = torch.zeros_like(p)
                    state["exp_avg_sq"] = torch.zeros_like(p)
                state["step"] += 1
                t, exp_avg, exp_avg_sq = state["step"], state["exp_avg"], state["exp_avg_sq"]
                exp_avg.mul_(beta1).add_(p.grad, alpha=1 - beta1)
                exp_avg_sq.mul_(beta2).addcmul_(p.grad, p.grad, value=1 - beta2)
                if self.fixed:
                    m_hat = exp_avg / (1 - beta1 ** t)
                else:
                    m_hat = exp_avg.div_(1 - beta1 ** t)     # BUG: corrects the average
                v_hat = exp_avg_sq / (1 - beta2 ** t)
                p.addcdiv_(m_hat, v_hat.sqrt().add_(group["eps"]), value=-group["lr"])


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_held, y_held = split()
    net = model()
    optimizer = InPlaceCorrectedAdam(net.parameters(), lr=LR, fixed=fixed)
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
