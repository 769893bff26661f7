"""A hand-written RAdam that caches the rectified step size in one buffer shared by every
parameter group, keyed by the step count only, and folds the learning rate INTO the cached
value. The first group processed at a step computes ``lr * rectification`` and stores it;
every later group at the same step finds the entry and reuses it, so every group steps at
the FIRST group's learning rate. A per-group set-up (a pretrained body at a small rate, a
new head at a large one) silently becomes one rate for all: here the new head, listed
second, crawls at the body's 1e-4 instead of its own 1e-2. The loss falls (slowly), every
gradient is healthy, and the optimizer's ``param_groups`` still show the rates asked for.

Reported: "Does RAdam break training with different learning rates for different
param_groups?" - https://github.com/LiyuanLucasLiu/RAdam/issues/24 (the reporter read that
RAdam's buffer caches ``step_size`` by ``state['step']`` alone, "based on the learning rate
from the first processed group", and confirmed with experiments that "the training looks
like it always uses the learning rate of the first parameter group"; the author fixed it by
taking ``lr`` out of the buffer, multiplying each group's own rate at the update; the same
bug was reported in jettify/pytorch-optimizer#96 and Ranger). Here: an MLP whose first
layer is pretrained on digits 0-4 (200 Adam steps, not watched), then fine-tuned with a new
10-class head on 1,300 of the 8x8 digits by the hand-written RAdam, groups [body lr 1e-4,
head lr 1e-2]; 497 digits held out. Fix: cache the rectification without the rate and
multiply by ``group['lr']``.

Measured (200 fine-tuning steps, batch 64): seed 0, held-out accuracy 0.19 for the bug
against 0.81 for the fixed twin; seeds shifted by 1000, 0.18 against 0.87.
"""
import math

import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._opt171 import accuracy, batches, split

TITLE = ("Does RAdam break training with different learning rates for different "
         "param_groups?")
LINK = "https://github.com/LiyuanLucasLiu/RAdam/issues/24"
EXPECTED = ("GROUP_RATES_OVERWRITTEN",)
STEPS = 200
PRETRAIN_STEPS = 200
BODY_LR, HEAD_LR = 1e-4, 1e-2


class CachedStepRAdam(torch.optim.Optimizer):
    """RAdam (Liu et al. 2020) with the original's ten-slot buffer of rectified step sizes,
    shared by all groups; ``fixed``: the rate is kept out of the cached value."""

    def __init__(self, params, lr, fixed, betas=(0.9, 0.999), eps=1e-8):
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps))
        self.fixed = fixed
        self.buffer = [[None, None, None] for _ in range(10)]

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
                slot = self.buffer[t % 10]
                if slot[0] == t:
                    rho, step_size = slot[1], slot[2]
                else:
                    rho_max = 2 / (1 - beta2) - 1
                    rho = rho_max - 2 * t * beta2 ** t / (1 - beta2 ** t)
                    if rho >= 5:
                        step_size = math.sqrt((1 - beta2 ** t) * (rho - 4) / (rho_max - 4)
                                              * (rho - 2) / rho * rho_max / (rho_max - 2))
                    else:
                        step_size = 1.0
                    step_size /= 1 - beta1 ** t
                    if not self.fixed:
                        step_size *= group["lr"]   # BUG: this group's rate, cached for all
                    slot[:] = [t, rho, step_size]
                rate = step_size * group["lr"] if self.fixed else step_size
                if rho >= 5:
                    p.addcdiv_(m, v.sqrt().add_(group["eps"]), value=-rate)
                else:
                    p.add_(m, alpha=-rate)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_held, y_held = split()
    body = nn.Sequential(nn.Linear(64, 64), nn.ReLU())
    first_half = y < 5                   # pretraining: the body learns digits 0-4
    old_head = nn.Linear(64, 5)
    pre = torch.optim.Adam([*body.parameters(), *old_head.parameters()], lr=1e-3)
    for xb, yb in batches(x[first_half], y[first_half], PRETRAIN_STEPS, seed=1):
        pre.zero_grad()
        nn.functional.cross_entropy(old_head(body(xb)), yb).backward()
        pre.step()
    net = nn.Sequential(body, nn.Linear(64, 10))
    optimizer = CachedStepRAdam([{"params": body.parameters(), "lr": BODY_LR},
                                 {"params": net[1].parameters(), "lr": HEAD_LR}],
                                lr=HEAD_LR, fixed=fixed)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(net, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(net(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(net, x_held, y_held)
    return mon
