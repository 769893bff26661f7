"""A Glow-style flow resumed from its checkpoint re-runs ActNorm's data-dependent
initialisation. ActNorm sets its shift and scale from the first batch it sees (so that its
output starts zero-mean, unit-variance), guarded by an ``initialized`` flag; the flag is a
plain Python attribute, so it is not in the state dict. A new model built to resume starts
with the flag off, the checkpoint's trained shifts and scales are loaded, and the first
training forward overwrites them all with fresh batch statistics. Every coupling layer after
an ActNorm now sees inputs on another scale than the one it was trained on: the resumed run
starts from a much worse model than the one saved, and spends its steps climbing back.

Reported: "ActNorm reinitializes on model load" -
https://github.com/rosinality/glow-pytorch/issues/6 ("Upon reloading the Glow model from
save after training, cross entropy performance diminished. This was likely because the
ActNorm module was being reinitialized on the first input batch"; fixed by "changing
initialized flag as module buffers. So it will be saved with model weights"). Here a flow of
four [ActNorm, affine coupling] steps on a 2-D two-moons density is trained 400 steps,
saved as a state dict, loaded into a new instance and trained on (the watched run) at the
resumed learning rate.
Fix: register the flag as a buffer (``register_buffer("initialized", torch.tensor(0))``),
so it is saved and loaded with the weights.

Measured (seed 0): held-out negative log-likelihood of the saved model 1.54; the bug's
first resumed loss 3.48 (the twin's 1.67), and after 150 resumed steps (Adam 3e-4) the
bug's held-out NLL is 1.62, worse than the model it resumed from, the twin's 1.49.
"""
import math

import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._flows import FlowStack, negative_log_likelihood

TITLE = "ActNorm reinitializes on model load"
LINK = "https://github.com/rosinality/glow-pytorch/issues/6"
EXPECTED = ("PRETRAINED_WEIGHTS_NOT_LOADED",)
PRETRAIN_STEPS = 400
STEPS = 150
LR = 3e-3
RESUME_LR = 3e-4
BATCH = 128
FLOW_STEPS = 4
HELD_OUT = 2000


def moons(n, generator):
    """Two interleaved half circles with a little noise, centred and scaled to about unit
    spread."""
    upper = torch.rand(n, generator=generator) < 0.5
    angle = torch.rand(n, generator=generator) * math.pi
    x = torch.where(upper, torch.cos(angle), 1 - torch.cos(angle))
    y = torch.where(upper, torch.sin(angle), 0.5 - torch.sin(angle))
    points = torch.stack([x - 0.5, y - 0.25], 1) * 1.5
    return points + 0.08 * torch.randn(n, 2, generator=generator)


class ActNorm(nn.Module):
    """Per-feature affine map, initialised from the first batch it transforms (Glow)."""

    def __init__(self, features, fixed):
        super().__init__()
        self.loc = nn.Parameter(torch.zeros(features))
        self.log_scale = nn.Parameter(torch.zeros(features))
        if fixed:
            self.register_buffer("initialized", torch.tensor(0))
        else:
            self.initialized = False        # BUG: not a buffer, so not in the state dict

    def forward(self, x):
        if not bool(self.initialized):
            with torch.no_grad():
                self.loc.copy_(-x.mean(0))
                self.log_scale.copy_(-torch.log(x.std(0) + 1e-6))
            if isinstance(self.initialized, torch.Tensor):
                self.initialized.fill_(1)
            else:
                self.initialized = True
        return (x + self.loc) * torch.exp(self.log_scale), self.log_scale.sum().expand(len(x))


class Coupling(nn.Module):
    def __init__(self, keep):
        super().__init__()
        self.keep = keep
        self.net = nn.Sequential(nn.Linear(1, 32), nn.ReLU(), nn.Linear(32, 2))

    def forward(self, x):
        kept, moved = x[:, self.keep:self.keep + 1], x[:, 1 - self.keep:2 - self.keep]
        log_scale, shift = self.net(kept).chunk(2, dim=1)
        log_scale = torch.tanh(log_scale)
        moved = moved * torch.exp(log_scale) + shift
        out = torch.cat([kept, moved], 1) if self.keep == 0 else torch.cat([moved, kept], 1)
        return out, log_scale.squeeze(1)


class Glow(FlowStack):
    def __init__(self, fixed):
        super().__init__()
        self.layers = nn.ModuleList()
        for i in range(FLOW_STEPS):
            self.layers.append(ActNorm(2, fixed))
            self.layers.append(Coupling(i % 2))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    data = torch.Generator().manual_seed(1)
    held_out = moons(HELD_OUT, torch.Generator().manual_seed(2))
    saved = Glow(fixed)
    optimizer = torch.optim.Adam(saved.parameters(), lr=LR)
    for _ in range(PRETRAIN_STEPS):
        optimizer.zero_grad()
        negative_log_likelihood(saved, moons(BATCH, data)).backward()
        optimizer.step()
    with torch.no_grad():
        saved_nll = negative_log_likelihood(saved, held_out)
    checkpoint = {k: v.clone() for k, v in saved.state_dict().items()}

    flow = Glow(fixed)                                  # the resumed run
    flow.load_state_dict(checkpoint)
    optimizer = torch.optim.Adam(flow.parameters(), lr=RESUME_LR)
    losses = []
    with nd.watch(flow, optimizer, **watch) as mon:
        for _ in range(steps):
            optimizer.zero_grad()
            loss = negative_log_likelihood(flow, moons(BATCH, data))
            loss.backward()
            optimizer.step()
            mon.step(loss)
            losses.append(float(loss))
    with torch.no_grad():
        nll = negative_log_likelihood(flow, held_out)
    mon.extra = {"saved_held_out_nll": round(float(saved_nll), 3),
                 "first_resumed_loss": round(losses[0], 3),
                 "held_out_nll": round(float(nll), 3)}
    return mon
