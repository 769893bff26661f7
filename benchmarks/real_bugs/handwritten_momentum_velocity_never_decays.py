"""A hand-written momentum whose coefficient sits on the wrong term: ``v = v + mu * g``
instead of ``v = mu * v + g``. The velocity never decays: it is the running sum of every
gradient so far, so each step moves by all the earlier gradients again (like gradients
never cleared), the effective step grows with the run and the weights overshoot and swing.

Reported: "GradientBasedOptimizerBase.ApplyMomentum applies the coefficient to the wrong
term - velocity never decays" - https://github.com/ooples/AiDotNet/issues/2008 ("The
coefficient is on the wrong term, so the velocity never decays"; under a constant gradient
it "grows without bound", so the effective step grows with the iteration count; closed
with the fix). Here a digits MLP trained by a hand-written momentum SGD at lr 0.02, mu 0.9.

Measured (300 steps, seed 0): the loss falls fast at first (0.35 averaged over steps
60-80), then climbs back and swings (0.4-0.8 per 20 steps, single steps up to 2.39 after
step 100; 0.79 over the last 20); with the velocity decaying it falls steadily to 0.18
(no step above 0.65 after step 100). Fix: ``v = mu * v + g``.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, mlp, train_watched

TITLE = ("GradientBasedOptimizerBase.ApplyMomentum applies the coefficient to the wrong "
         "term - velocity never decays")
LINK = "https://github.com/ooples/AiDotNet/issues/2008"
EXPECTED = ("GRADIENTS_ACCUMULATING",)
STEPS = 300
LR, MOMENTUM = 0.02, 0.9


class HandwrittenMomentum(torch.optim.Optimizer):
    """SGD with heavy-ball momentum, written by hand."""

    def __init__(self, params, lr, momentum, fixed):
        super().__init__(params, dict(lr=lr, momentum=momentum))
        self.fixed = fixed

    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            mu = group["momentum"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                velocity = self.state[p].setdefault("velocity", torch.zeros_like(p))
                if self.fixed:
                    velocity.mul_(mu).add_(p.grad)
                else:
                    velocity.add_(p.grad, alpha=mu)      # BUG: v + mu * g
                p -= group["lr"] * velocity


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    optimizer = HandwrittenMomentum(model.parameters(), LR, MOMENTUM, fixed)
    return train_watched(model, optimizer, nn.CrossEntropyLoss(), batches(x, y, steps),
                         **watch)
