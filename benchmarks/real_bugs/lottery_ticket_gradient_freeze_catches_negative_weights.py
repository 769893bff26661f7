"""Lottery-ticket pruning whose "freeze the pruned weights" step zeroes the gradient of
every weight below a tiny epsilon, ``where(w < 1e-6, 0, grad)``, instead of every weight
whose MAGNITUDE is below it. Pruned weights are exactly 0 and do freeze, but so does every
negative weight: from the first step about half of each weight matrix never trains, and
every weight that an update carries below zero is frozen there for good. The loss still
falls (the positive half and the biases learn), nothing errors, and the accuracy settles
well under what the same network reaches - in the dense round as in the pruned ones.

Reported: "Freezing Pruned weights smaller than 1e-6" -
https://github.com/rahulvigneswaran/Lottery-Ticket-Hypothesis-in-Pytorch/issues/5 (the
training loop's ``np.where(tensor < EPS, 0, grad_tensor)`` also freezes the negative
weights; a user confirmed that with it fixed the first, unpruned iteration reaches the
original performance, and the fix given is ``np.where(abs(tensor) < EPS, 0, grad)``).
Here the repository's procedure on the digits: an MLP 64-128-64-10 (xavier-normal weights,
normal biases, as its ``weight_init``), Adam (lr 1.2e-3, weight decay 1e-4), a dense round,
then 50% of each weight matrix's surviving weights pruned by magnitude, the rest rewound to
their initial values and trained again (the winning ticket), the gradient freeze applied
after every backward. Fix: the freeze tests ``|w| < 1e-6``.

Measured (600 steps, the prune and rewind at step 300; held-out accuracy of the ticket on
397 digits): seed 0, 0.846 for the bug against 0.960 for the fixed twin; seeds shifted by
1000, 0.862 against 0.972.
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._q165 import accuracy, digits_split

TITLE = "Freezing Pruned weights smaller than 1e-6"
LINK = "https://github.com/rahulvigneswaran/Lottery-Ticket-Hypothesis-in-Pytorch/issues/5"
EXPECTED = ("GRADIENT_MASK_FREEZES_LIVE_WEIGHTS",)
STEPS = 600
EPS = 1e-6
PRUNE_PERCENT = 50


def weight_init(module):
    if isinstance(module, nn.Linear):
        nn.init.xavier_normal_(module.weight)
        nn.init.normal_(module.bias)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_held, y_held = digits_split(0)
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 64), nn.ReLU(),
                          nn.Linear(64, 10))
    model.apply(weight_init)
    initial = {k: v.clone() for k, v in model.state_dict().items()}
    weights = [p for n, p in model.named_parameters() if n.endswith("weight")]
    masks = [torch.ones_like(w) for w in weights]
    optimizer = torch.optim.Adam(model.parameters(), lr=1.2e-3, weight_decay=1e-4)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for step, (xb, yb) in enumerate(batches(x, y, steps)):
            if step == steps // 2:       # prune the dense round, rewind the rest to init
                with torch.no_grad():
                    for i, w in enumerate(weights):
                        alive = w[masks[i].bool()].abs()
                        cut = np.percentile(alive.numpy(), PRUNE_PERCENT)
                        masks[i] = torch.where(w.abs() < cut, torch.zeros_like(w), masks[i])
                    model.load_state_dict(initial)
                    for w, mask in zip(weights, masks):
                        w.mul_(mask)
                optimizer.state.clear()          # a fresh Adam for the new round
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            with torch.no_grad():                # freeze the pruned weights
                for w in weights:
                    if fixed:
                        dead = w.abs() < EPS
                    else:
                        dead = w < EPS           # BUG: every negative weight as well
                    w.grad[dead] = 0
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, x_held, y_held)
    return mon
