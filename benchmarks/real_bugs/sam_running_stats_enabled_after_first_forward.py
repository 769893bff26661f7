"""Sharpness-aware minimisation with a batch-norm network: the second forward pass (at the
perturbed weights) must not update the batch norms' running statistics, so the loop calls
``disable_running_stats(model)`` before it (each batch norm's momentum saved and set to 0)
and ``enable_running_stats(model)`` before the FIRST forward of the next step (the momentum
put back). Here ``enable_running_stats`` is called after the first forward instead. The
first step's first forward still updates the statistics, but from then on the momentum is 0
in both forwards of every step - it is only restored between the first forward and the
second, where it is zeroed again. The running mean and variance stay where the first batch
left them (a tenth of the way from 0 and 1), training in batch statistics goes on as if
nothing were wrong, and the evaluated model normalises with statistics that were never
estimated.

Reported: "SAM doesn't seem to be doing well" -
https://github.com/davda54/sam/issues/87 (with SAM, "my model seemed to perform even worse
... dropping from 90% accuracy to 60% accuracy"; the loop posted runs ``outputs =
model(x)`` and only then ``enable_running_stats(model)``, then ``disable_running_stats``
before the second forward. The thread closed without naming a cause; the README's usage,
which this twin follows, enables the running statistics before the first forward.) Here:
an MLP with batch norm on 1,300 of the 8x8 digits, SAM (rho 0.05) around SGD (lr 0.05,
momentum 0.9), the bypass helpers of the SAM repository; 497 digits held out, the model in
eval mode. Fix: ``enable_running_stats(model)`` before the first forward.

Measured (held-out accuracy, 300 steps, batch 64): 0.66 with the bug, 0.98 fixed; seeds +
1000: 0.82 vs 0.98.
"""
import torch
from torch.nn.modules.batchnorm import _BatchNorm

import nndebug as nd
from benchmarks.real_bugs._opt171 import batches, split

TITLE = "SAM doesn't seem to be doing well"
LINK = "https://github.com/davda54/sam/issues/87"
EXPECTED = ("BATCHNORM_STATISTICS_FROZEN",)
STEPS = 300
LR = 0.05
RHO = 0.05


class SAM(torch.optim.Optimizer):
    """The first and second steps of sharpness-aware minimisation around a base optimizer."""

    def __init__(self, params, base_optimizer, rho=0.05, **kwargs):
        super().__init__(params, dict(rho=rho, **kwargs))
        self.base_optimizer = base_optimizer(self.param_groups, **kwargs)
        self.param_groups = self.base_optimizer.param_groups

    @torch.no_grad()
    def first_step(self, zero_grad=False):
        grad_norm = torch.norm(torch.stack([p.grad.norm(p=2) for group in self.param_groups
                                            for p in group["params"] if p.grad is not None]))
        for group in self.param_groups:
            scale = group["rho"] / (grad_norm + 1e-12)
            for p in group["params"]:
                if p.grad is None:
                    continue
                self.state[p]["old_p"] = p.data.clone()
                p.add_(p.grad * scale.to(p))            # climb to the local worst point
        if zero_grad:
            self.zero_grad()

    @torch.no_grad()
    def second_step(self, zero_grad=False):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                p.data = self.state[p]["old_p"]         # back to w
        self.base_optimizer.step()                      # the sharpness-aware update
        if zero_grad:
            self.zero_grad()


def disable_running_stats(model):
    def _disable(module):
        if isinstance(module, _BatchNorm):
            module.backup_momentum = module.momentum
            module.momentum = 0
    model.apply(_disable)


def enable_running_stats(model):
    def _enable(module):
        if isinstance(module, _BatchNorm) and hasattr(module, "backup_momentum"):
            module.momentum = module.backup_momentum
    model.apply(_enable)


def model():
    return torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.BatchNorm1d(64),
                               torch.nn.ReLU(), torch.nn.Linear(64, 64),
                               torch.nn.BatchNorm1d(64), torch.nn.ReLU(),
                               torch.nn.Linear(64, 10))


@torch.no_grad()
def accuracy(net, x, y):
    net.eval()
    out = net(x)
    net.train()
    return (out.argmax(1) == y).float().mean().item()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_held, y_held = split()
    net = model()
    optimizer = SAM(net.parameters(), torch.optim.SGD, rho=RHO, lr=LR, momentum=0.9)
    loss_fn = torch.nn.CrossEntropyLoss()
    with nd.watch(net, optimizer.base_optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            if fixed:
                enable_running_stats(net)               # before the first forward
            outputs = net(xb)
            if not fixed:
                enable_running_stats(net)               # BUG: after the first forward
            loss = loss_fn(outputs, yb)
            loss.backward()
            optimizer.first_step(zero_grad=True)
            disable_running_stats(net)                  # the perturbed pass leaves them be
            loss_fn(net(xb), yb).backward()
            optimizer.second_step(zero_grad=True)
            mon.step(loss)
    mon.held_out_accuracy = accuracy(net, x_held, y_held)
    return mon
