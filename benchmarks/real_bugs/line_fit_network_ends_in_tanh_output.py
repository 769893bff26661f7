"""A small MLP fitted to the line y = 10 x whose LAST layer also has activation='tanh': its
prediction can never leave (-1, 1) while the targets span -20..20, so the loss stalls in the
hundreds whatever the hidden layers learn.

Reported: "Issue in simple neural network" - https://example-a.com/answer/77588498 (a
Keras Dense(16, tanh) - Dense(8, tanh) - Dense(4, tanh) - Dense(1, activation='tanh') model
on "data as y=10.0*x", MSE: "tensorflow is giving me a loss of ~2000 to ~200000 ... Also
tried relu activations as well, without any use"; the answer's model ends in a plain
Dense(1) - "# activation='linear'"). Here the same layers in PyTorch on 1000 points of
x in [-2, 2] (800 to train), Adam 0.03, batches of 32 (Keras' default). Fix: a linear
output layer (no tanh after the last Linear).

Measured harm (held-out R^2): seed 0: 0.137 vs 0.996; seeds + 1000: 0.144 vs 0.997.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._curve_fitting import r2

TITLE = "Issue in simple neural network"
LINK = "https://example-a.com/answer/77588498"
EXPECTED = ("TARGETS_OUTSIDE_OUTPUT_RANGE",)
STEPS = 400
BATCH = 32


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x = torch.rand(1000, 1) * 4 - 2
    y = 10.0 * x
    layers = [nn.Linear(1, 16), nn.Tanh(), nn.Linear(16, 8), nn.Tanh(), nn.Linear(8, 4),
              nn.Tanh(), nn.Linear(4, 1)]
    if not fixed:
        layers.append(nn.Tanh())                # BUG: the output squashed into (-1, 1)
    model = nn.Sequential(*layers)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.03)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            rows = torch.randint(0, 800, (BATCH,))
            loss = ((model(x[rows]) - y[rows]) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        mon.held_out_r2 = r2(model(x[800:]), y[800:])
    return mon
