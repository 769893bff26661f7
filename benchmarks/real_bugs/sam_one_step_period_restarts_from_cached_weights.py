"""A sharpness-aware-minimisation wrapper written by hand in the "transparent" style: it
keeps a cache of the weights at the start of each period (where the adversarial steps
begin) and applies the outer optimizer's update to that CACHE, moving the weights to
``cache + update``. With a period of one step (no adversarial step: the wrapper should
reduce to its base optimizer) the cache never holds the weights the last step reached, so
every step throws the previous ones away and puts the weights back near the initial ones
plus the latest update (the report: ``x_t = x_0 + u_{t-1}`` with SGD; here the cache is
the initial weights, ``w_t = w_0 + u_t``). The loss stays near its value at initialisation, the gradients stay
healthy and the optimizer keeps stepping; the model never gets more than one step away
from where it started.

Reported: "Fix sam with sync_period=1 undoing the previous step in transparent mode" -
https://github.com/google-deepmind/optax/pull/1788 (optax.contrib.sam accepts
``sync_period=1``, meaning the outer optimizer runs every step with no adversarial step,
but in transparent mode "every step after the first undoes the previous step, so training
stalls one step away from the initial parameters": the outer update is added to the
cached parameters, ``x_t = x_0 + u_{t-1}`` with SGD; the fix passes the current parameters
to the outer optimizer when the period is 1, as the opaque mode already did). Here: an MLP
on 1,300 of the 8x8 digits, the wrapper around SGD (lr 0.1, momentum 0.9) with a period of
one step; 497 digits held out. Fix: with a one-step period the update starts from the
current weights (the wrapper is its base optimizer).

Measured (300 steps, batch 64): seed 0, held-out accuracy 0.23 for the bug against
0.97 for the fixed twin; seeds shifted by 1000, 0.21 against 0.98.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._opt171 import accuracy, batches, model, split

TITLE = "Fix sam with sync_period=1 undoing the previous step in transparent mode"
LINK = "https://github.com/google-deepmind/optax/pull/1788"
EXPECTED = ("UPDATES_UNDONE", "WEIGHTS_RESET_EACH_STEP")
STEPS = 300
LR = 0.1
SYNC_PERIOD = 1         # the outer optimizer every step: no adversarial step


class TransparentSAM:
    """The outer (base) optimizer's update applied to the weights cached at the period's
    start; ``fixed``: with a one-step period, to the current weights."""

    def __init__(self, base, fixed):
        self.base, self.fixed = base, fixed
        self.params = [p for g in base.param_groups for p in g["params"]]
        self.cache = [p.detach().clone() for p in self.params]

    def zero_grad(self):
        self.base.zero_grad()

    @torch.no_grad()
    def step(self):
        before = [p.detach().clone() for p in self.params]
        self.base.step()                     # the outer update u, taken at the weights
        if self.fixed and SYNC_PERIOD == 1:
            return                           # current weights + u
        for p, old, cached in zip(self.params, before, self.cache):
            p.copy_(cached + (p - old))      # BUG: cache + u; the cache is w_0 for good


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_held, y_held = split()
    net = model()
    base = torch.optim.SGD(net.parameters(), lr=LR, momentum=0.9)
    sam = TransparentSAM(base, fixed)
    loss_fn = torch.nn.CrossEntropyLoss()
    with nd.watch(net, base, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            sam.zero_grad()
            loss = loss_fn(net(xb), yb)
            loss.backward()
            sam.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(net, x_held, y_held)
    return mon
