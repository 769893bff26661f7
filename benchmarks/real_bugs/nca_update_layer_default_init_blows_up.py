"""A growing neural cellular automaton whose last update layer (the 1x1 convolution that
writes each cell's state change) keeps PyTorch's default kaiming-uniform init instead of
starting at zero. The automaton starts as a random rule rather than the "do nothing" rule:
over a rollout of 32-40 steps the residual updates compound, the live cells' states grow to
tens (or the seed dies at once), and training spends its steps pulling back a blown-up grid.
The loss still falls, from about 1.2 to 0.06, but the rule it settles on grows a blurred
pattern, about twice as far from the target as the same automaton started at zero.

Reported: "Faster and more stable training" -
https://github.com/distillpub/post--growing-ca/issues/12 ("if you do kaiming_uniform for
the update convolutional layer, the picture the CA generates will soon 'blow up'"). Here
``_nca344``'s automaton (12 channels, identity and Sobel perception, a random half of the
cells updated per step, alive masking by alpha > 0.1), a 12x12 RGBA disc-and-ring target
grown from one seed cell, rollouts of 32-40 steps, MSE on the RGBA channels, Adam 3e-3,
batches of 4 seeds, 80 steps.

Fix: start the update layer at zero (``nn.init.zeros_``), as the article's notebook does,
so the rule begins as "do nothing" and learns to act (the reporter's alternative is a
warm-up of short rollouts).

Measured (held-out RGBA squared error of 8 fresh rollouts of 36 and 40 steps, lower is
better): 0.058 with the bug, 0.025 fixed; seeds + 1000: 0.069 vs 0.028.
"""
import numpy as np
import torch

import nndebug as nd
from benchmarks.real_bugs._nca344 import CA, held_out_error, rgba_loss, seed, target

TITLE = "Faster and more stable training"
LINK = "https://github.com/distillpub/post--growing-ca/issues/12"
EXPECTED = ("EXPLODING_ACTIVATIONS", "EXPLODING_GRADIENTS")
STEPS = 80


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    goal = target()
    model = CA(zero_last=fixed)           # BUG: the update layer keeps its default init
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    rng = np.random.default_rng(0)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            length = int(rng.integers(32, 41))
            grown = model(seed(4), length)
            loss = rgba_loss(grown, goal)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_error = held_out_error(model, goal, lengths=(36, 40))
    return mon
