"""An exponential moving average whose copy starts as a SECOND, independently initialised
network instead of a copy of the model: the average blends the trained weights into the
weights of an unrelated random network, whose hidden units do not correspond to the model's.
Until that random start has decayed away (0.997**n of it is left after n updates) the averaged
model - the one validated and kept - mixes two different networks unit by unit and scores far
below the model it follows.

Reported: "Question about EMA" - https://github.com/Haochen-Wang409/U2PL/issues/128 ("how is
the teacher model initialized before doing EMA? (i.e. directly copy the parameters from the
student model, randomly initialized)"; the maintainer: "In our code, the teacher is randomly
initialized"; the asker: a randomly initialised network supervising the student does not make
sense). Here the digits (80/20 split), a two-hidden-layer MLP, Adam at 3e-3, 8 epochs of 22
batches, an EMA at decay 0.997 updated after every step and validated every epoch.
Fix: build the EMA as ``copy.deepcopy(model)``.

Measured (held-out digits, the EMA's accuracy after the last step): 0.458 with the bug
against 0.878 for the fixed twin (the live network 0.944); seeds + 1000: 0.586 vs 0.906.
"""
import copy

import torch
from torch import nn

from benchmarks.real_bugs._ema import train_validating_ema
from benchmarks.real_bugs._swa import evaluate, split

TITLE = "Question about EMA"
LINK = "https://github.com/Haochen-Wang409/U2PL/issues/128"
EXPECTED = ("VALIDATION_NEVER_IMPROVED",)
EPOCH = 22           # batches of 64 in the training split
STEPS = 8 * EPOCH
DECAY = 0.997


def network(hidden=64):
    return nn.Sequential(nn.Linear(64, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                         nn.Linear(hidden, 10))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    data = split()
    model = network()
    ema = copy.deepcopy(model) if fixed else network()      # BUG: a fresh random network
    ema.eval()
    for p in ema.parameters():
        p.requires_grad_(False)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)

    @torch.no_grad()
    def update():
        for e, p in zip(ema.parameters(), model.parameters()):
            e.mul_(DECAY).add_(p, alpha=1 - DECAY)

    mon = train_validating_ema(model, ema, optimizer, update, data, steps, EPOCH, watch)
    mon.ema_accuracy = evaluate(ema, data[2], data[3])[1]
    mon.model_accuracy = evaluate(model, data[2], data[3])[1]
    return mon
