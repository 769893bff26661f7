"""A hypernetwork that generates a small correction network - two layers, W1 then W2 -
from a conditioning embedding, added to a shared model's output, with BOTH of its
generator heads initialised to zero. The intent is the usual one (start as "no
correction", so the base model is untouched at step 0), but zeroing both factors of a
product leaves every gradient of the product at zero too: W1 = 0 makes the hidden
activations 0, so W2's generator gets no gradient, and W2 = 0 sends none back to W1's.
The hypernetwork outputs exactly zero corrections for the whole run, the shared model
trains as if it were absent, the loss falls to what the model can do without the
conditioning, and nothing errors.

Reported: "HyPINO Hypernetwork: per-sample SRF weight generation from flow params" -
https://github.com/wandb/senpai/pull/2385 (the experiment's results: the HyperSRF model did
no better than the baseline, and the root cause given is an initialisation bug that kept
the hypernetwork's corrections at zero for all 154 epochs, so the model was the baseline
SRF in effect. The report does not spell out the initialisation; here the common form that
does exactly this - both factors of the generated correction zeroed - and the usual fix,
LoRA's: one factor random, only the last one zero). Here the digits with a conditioning the
shared model cannot see: 4 tasks, each asking for the digit's label shifted by 0, 3, 5 or 7
(mod 10); a shared MLP (64 hidden) and linear head, and a hypernetwork that maps a learned
task embedding (16 numbers) to a per-task correction MLP (64 -> 16 -> 10) added to the
head's logits; Adam. Fix: W1's generator keeps its default initialisation, only W2's is
zeroed (the corrections still start at exactly zero).

Measured (600 steps of 64 digits with random tasks, 397 held-out digits cycled through the
4 tasks): seed 0, held-out accuracy 0.26 for the bug against 0.96 for the fixed twin (the
largest weight of W2 the hypernetwork generates after training: 0.0 against 1.66); seeds
shifted by 1000, 0.23 against 0.98 (W2 0.0 against 1.31).
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import classification

TITLE = "HyPINO Hypernetwork: per-sample SRF weight generation from flow params"
LINK = "https://github.com/wandb/senpai/pull/2385"
EXPECTED = ("NO_GRADIENT",)
STEPS = 600
TASKS, HIDDEN, RANK, EMBED, BATCH = 4, 64, 16, 16, 64
SHIFTS = torch.tensor([0, 3, 5, 7])      # task t asks for (digit + SHIFTS[t]) mod 10


class HyperCorrected(nn.Module):
    """A shared classifier plus a correction network whose two layers are generated per
    task from a learned embedding."""

    def __init__(self, zero_both):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(64, HIDDEN), nn.ReLU())
        self.head = nn.Linear(HIDDEN, 10)
        self.task = nn.Embedding(TASKS, EMBED)
        self.make_w1 = nn.Linear(EMBED, RANK * HIDDEN)
        self.make_w2 = nn.Linear(EMBED, 10 * RANK)
        nn.init.zeros_(self.make_w2.weight)          # no correction at step 0
        nn.init.zeros_(self.make_w2.bias)
        if zero_both:                                # BUG: the first factor zeroed as well
            nn.init.zeros_(self.make_w1.weight)
            nn.init.zeros_(self.make_w1.bias)

    def forward(self, x, task):
        h = self.body(x)
        e = self.task(task)
        w1 = self.make_w1(e).view(-1, RANK, HIDDEN)
        w2 = self.make_w2(e).view(-1, 10, RANK)
        inner = torch.relu(torch.einsum("brh,bh->br", w1, h))
        return self.head(h) + torch.einsum("bor,br->bo", w2, inner)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    order = torch.randperm(len(x))
    train, held_out = order[:1400], order[1400:]
    model = HyperCorrected(zero_both=not fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            rows = train[torch.randint(0, len(train), (BATCH,))]
            task = torch.randint(0, TASKS, (BATCH,))
            loss = F.cross_entropy(model(x[rows], task), (y[rows] + SHIFTS[task]) % 10)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        task = torch.arange(len(held_out)) % TASKS
        target = (y[held_out] + SHIFTS[task]) % 10
        mon.held_out_accuracy = (model(x[held_out], task).argmax(1) == target).float().mean().item()
        mon.largest_generated_w2 = model.make_w2(model.task.weight).abs().max().item()
    return mon
