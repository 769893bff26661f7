"""A growing neural cellular automaton trained with the stochastic per-cell update mask
(each cell applies its update with probability 0.5 at each step), whose author treats the
mask like dropout: in eval mode every cell updates at every step. The rule was learnt for
half the cells moving per step, so with all of them moving the pattern grows about twice as
fast, overshoots the target and keeps going; every validation rollout and every prediction
made in eval mode is far off, while the training loss falls as in a healthy run.

Reported: "Limit-cycle drift in NCA: is the stochastic-mask vs inference-accuracy tradeoff
architecturally fundamental?" -
https://www.bazaarfrontier.org/problems/06ab536c-71ff-42a8-aa64-c40990064bbc (of the
per-cell Bernoulli mask: "turning it off causes catastrophic divergence in the original
codebase: sphere CD goes from 0.02 to 2.13 at 16 steps"). Here ``_nca344``'s automaton
(12 channels, identity and Sobel perception, alive masking by alpha > 0.1, the update layer
started at zero), a 12x12 RGBA disc-and-ring target grown from one seed cell, rollouts of
32-40 steps, MSE on the RGBA channels, Adam 3e-3, batches of 4 seeds, 80 steps, a
validation rollout of 36 steps in eval mode every 20 steps.

Fix: keep the update mask on at evaluation (it is part of the rule, not a regulariser to
switch off).

Measured (held-out RGBA squared error of 8 fresh rollouts of 36 and 40 steps in eval mode,
lower is better): 0.301 with the bug, 0.025 fixed; seeds + 1000: 0.336 vs 0.028.
"""
import numpy as np
import torch

import nndebug as nd
from benchmarks.real_bugs._nca344 import CA, held_out_error, rgba_loss, seed, target

TITLE = ("Limit-cycle drift in NCA: is the stochastic-mask vs inference-accuracy tradeoff "
         "architecturally fundamental?")
LINK = "https://www.bazaarfrontier.org/problems/06ab536c-71ff-42a8-aa64-c40990064bbc"
EXPECTED = ("VALIDATION_NEVER_IMPROVED",)
STEPS = 80


class DropoutLikeCA(CA):
    """The bug: the update mask is applied only in training mode, as dropout would be."""

    def fire(self, x, generator=None):
        if self.training:
            return super().fire(x, generator)
        return torch.ones(x.shape[0], 1, x.shape[2], x.shape[3])


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    goal = target()
    model = CA() if fixed else DropoutLikeCA()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    rng = np.random.default_rng(0)
    with nd.watch(model, optimizer, **watch) as mon:
        for step in range(1, steps + 1):
            length = int(rng.integers(32, 41))
            grown = model(seed(4), length)
            loss = rgba_loss(grown, goal)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            val_loss = None
            if step % 20 == 0:
                model.eval()
                with torch.no_grad():
                    check = model(seed(4), 36, generator=torch.Generator().manual_seed(7))
                    val_loss = ((check[:, :4].clamp(0, 1) - goal) ** 2).mean().item()
                model.train()
            mon.step(loss, val_loss=val_loss)
    model.eval()
    mon.held_out_error = held_out_error(model, goal, lengths=(36, 40))
    return mon
