"""A "model soup" whose ingredients were trained from DIFFERENT random initialisations: the
three networks solve the task, but their hidden units are numbered differently (any
permutation of a hidden layer is the same function), so averaging their weights unit by unit
mixes unrelated features and the merged model is far worse than any of its ingredients.
Weight averaging works for networks that share a starting point (fine-tuned from one
pre-trained model, or branched from one run), which then stay in one basin.

Reported: "How to weights merge?" - https://github.com/state-spaces/mamba/issues/139 ("I
trained 3 models, but after averaging the weights, the model output is garbled!"). Here the
digits (80/20 split), three MLPs (two hidden layers of 64) trained side by side (one Adam over
the three, each on its own shuffled batches, the summed loss watched), 300 steps, then the
three averaged weight by weight and the soup validated.
Fix: start the three ingredients from one initialisation (a copy of the first network), as
model soups do; they still see different batches.

Measured (held-out digits, the soup's accuracy): 0.256 with the bug against 0.958 for the
fixed twin (the ingredients 0.95-0.97 in both); seeds + 1000: 0.372 vs 0.964.
"""
import copy

import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._swa import evaluate, split

TITLE = "How to weights merge?"
LINK = "https://github.com/state-spaces/mamba/issues/139"
EXPECTED = ("VALIDATION_NEVER_IMPROVED",)
STEPS = 300
INGREDIENTS = 3


def deep_mlp(hidden=64):
    return nn.Sequential(nn.Linear(64, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                         nn.Linear(hidden, 10))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x_train, y_train, x_val, y_val = split()
    first = deep_mlp()
    nets = [first] + [copy.deepcopy(first) if fixed else deep_mlp()     # BUG: fresh inits
                      for _ in range(INGREDIENTS - 1)]
    model = nn.ModuleList(nets)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    streams = [batches(x_train, y_train, steps, seed=k) for k in range(INGREDIENTS)]
    soup = copy.deepcopy(first)
    with nd.watch(model, optimizer, **watch) as mon:
        for done, parts in enumerate(zip(*streams), start=1):
            optimizer.zero_grad()
            loss = sum(F.cross_entropy(net(xb), yb) for net, (xb, yb) in zip(nets, parts))
            loss.backward()
            optimizer.step()
            val_loss = None
            if done == steps:
                with torch.no_grad():
                    for name, p in soup.state_dict().items():
                        p.copy_(sum(net.state_dict()[name] for net in nets) / INGREDIENTS)
                val_loss, mon.soup_accuracy = evaluate(soup, x_val, y_val)
            mon.step(loss, val_loss=val_loss)
    mon.ingredient_accuracy = [evaluate(net, x_val, y_val)[1] for net in nets]
    return mon
