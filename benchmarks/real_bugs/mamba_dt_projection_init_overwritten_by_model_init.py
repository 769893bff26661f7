"""A small Mamba classifier whose block initialises its step-size projection the Mamba way
- dt_proj's bias set to the inverse softplus of step sizes drawn log-uniformly in
[0.001, 0.1], so each channel starts with its own, mostly long, memory - and whose model
wrapper then runs ``self.apply(_init_weights)``, re-drawing EVERY nn.Linear as N(0, 0.02)
with a zero bias. dt_proj is an nn.Linear: its bias becomes 0, every step size starts at
softplus(0) = 0.69, and with A = -1..-8 each step multiplies the state by at most 0.5. The
block forgets a row within two or three steps, Adam moves the bias by a few tenths at most,
and the model that answers at the last step cannot carry the first token that far; the
loss falls all the same.

Reported: "[bug] incorrect mamba initialization" - https://github.com/athms/mad-lab/issues/3
("the current version of the model wrapper **overwrites** these initializations", the
dt_proj weight and bias under a Gaussian init of all linear layers; fixed by
athms/mad-lab#4). Here a one-block Mamba (in_proj, causal depthwise conv of width 4,
x_proj to dt/B/C, dt_proj, selective scan with A = -exp(A_log), D skip, SiLU gate,
out_proj, pre-norm residual) between a token embedding and a linear head, on a recall task
of the kind MAD's synthetic suite holds: 16 tokens, the first one of 8 keys, the rest
noise, the key to be named at the last step; Adam 3e-3, 300 steps of 64 sequences.

Fix: the wrapper's init leaves the modules the block marked ``_no_reinit`` (dt_proj) as
the block initialised them.

Measured (held-out accuracy, 1000 fresh sequences; chance 0.125): 0.120 with the bug, 1.000
fixed; seeds + 1000: 0.104 vs 1.000.
"""
import math

import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._ssm337 import accuracy, recall_sequences

TITLE = "[bug] incorrect mamba initialization"
LINK = "https://github.com/athms/mad-lab/issues/3"
EXPECTED = ("INIT_SCALE_TOO_SMALL",)
STEPS = 300


class MambaBlock(nn.Module):
    def __init__(self, d_model=32, expand=2, d_state=8, d_conv=4, dt_min=1e-3, dt_max=0.1):
        super().__init__()
        inner = expand * d_model
        self.dt_rank = math.ceil(d_model / 16)
        self.d_state = d_state
        self.in_proj = nn.Linear(d_model, 2 * inner, bias=False)
        self.conv1d = nn.Conv1d(inner, inner, d_conv, groups=inner, padding=d_conv - 1)
        self.x_proj = nn.Linear(inner, self.dt_rank + 2 * d_state, bias=False)
        self.dt_proj = nn.Linear(self.dt_rank, inner)
        std = self.dt_rank ** -0.5
        with torch.no_grad():
            nn.init.uniform_(self.dt_proj.weight, -std, std)
            dt = torch.exp(torch.rand(inner) * (math.log(dt_max) - math.log(dt_min))
                           + math.log(dt_min))
            self.dt_proj.bias.copy_(dt + torch.log(-torch.expm1(-dt)))   # softplus^-1
        self.dt_proj._no_reinit = True
        self.A_log = nn.Parameter(torch.log(torch.arange(1, d_state + 1).float()).repeat(inner, 1))
        self.D = nn.Parameter(torch.ones(inner))
        self.out_proj = nn.Linear(inner, d_model, bias=False)

    def forward(self, x):                      # (batch, length, d_model)
        length = x.shape[1]
        u, z = self.in_proj(x).chunk(2, dim=-1)
        u = F.silu(self.conv1d(u.transpose(1, 2))[:, :, :length].transpose(1, 2))
        dt, B, C = self.x_proj(u).split([self.dt_rank, self.d_state, self.d_state], dim=-1)
        dt = F.softplus(self.dt_proj(dt))                        # (b, l, inner)
        A = -torch.exp(self.A_log)                               # (inner, n)
        h = torch.zeros(x.shape[0], u.shape[-1], self.d_state)
        ys = []
        for t in range(length):
            h = torch.exp(dt[:, t, :, None] * A) * h \
                + (dt[:, t, :, None] * B[:, t, None, :]) * u[:, t, :, None]
            ys.append((h * C[:, t, None, :]).sum(-1))
        y = torch.stack(ys, dim=1) + u * self.D
        return self.out_proj(y * F.silu(z))


class MambaClassifier(nn.Module):
    def __init__(self, respect_no_reinit):
        super().__init__()
        self.respect_no_reinit = respect_no_reinit
        self.embed = nn.Embedding(16, 32)
        self.norm = nn.LayerNorm(32)
        self.block = MambaBlock()
        self.norm_f = nn.LayerNorm(32)
        self.head = nn.Linear(32, 10)
        self.apply(self._init_weights)

    def _init_weights(self, m, initializer_range=0.02):
        if self.respect_no_reinit and getattr(m, "_no_reinit", False):
            return                             # the fix: keep the block's own init
        if isinstance(m, nn.Linear):           # BUG (unfixed): dt_proj re-drawn too
            nn.init.normal_(m.weight, mean=0, std=initializer_range)
            if m.bias is not None:
                nn.init.zeros_(m.bias)
        elif isinstance(m, nn.Embedding):
            nn.init.normal_(m.weight, mean=0, std=initializer_range)

    def forward(self, x):
        h = self.embed(x)
        h = h + self.block(self.norm(h))
        return self.head(self.norm_f(h)[:, -1])


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = recall_sequences(4000, seed=0)
    xh, yh = recall_sequences(1000, seed=1)
    model = MambaClassifier(respect_no_reinit=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps, seed=0):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, xh, yh)
    return mon
