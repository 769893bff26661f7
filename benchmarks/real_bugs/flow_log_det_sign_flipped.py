"""A normalizing flow trained by reverse KL whose forward log-determinant is added with the
wrong sign: the sample's density under the flow, log q(x) = log N(z) - log|det df/dz|, is
computed as log N(z) + log|det df/dz|. The loss then rewards shrinking volume: the flow
squeezes every sample onto the target's mode and the loss falls without bound while the
true KL to the target grows.

Reported: "Issue while computing the `flow.forward` function" -
https://github.com/VincentStimper/normalizing-flows/issues/27 ("I was wondering why there
was a minus here ... when computing the forward log jacobian ? Shouldn't it be a plus ?";
fixed by "Fixed sign of log det of `forward_and_log_det` method",
https://github.com/VincentStimper/normalizing-flows/pull/28). Here a small affine coupling
flow (four RealNVP layers, scale exp(s)) on 2-D data is trained by reverse KL towards a
two-mode Gaussian mixture (modes at (+-2, 0)). After 400 steps the bug's true reverse KL is
169 (its loss -152 and falling), the fixed twin's 0.22. Fix: log q(x) = log N(z) - log|det|.

As it came watch was silent on bug and twin (this version, scored on the code before
any rule of this batch, and a first draft with tanh-bounded log-scales): the loss
fell smoothly, gradients and updates were healthy, nothing in the graph's shapes or
reductions was wrong, only the sign of one term. With a bounded scale the flow's volume
has a floor, the loss converges (to a KL of 2.35 against 0.31) and that stays a miss.

How watch finds it: the loss falls far below zero (over 100x its starting magnitude) and
keeps falling no slower, which no loss with a floor does: LOSS_UNBOUNDED_BELOW.
"""
import math

import torch
from torch import nn

import nndebug as nd

TITLE = "Issue while computing the `flow.forward` function"
LINK = "https://github.com/VincentStimper/normalizing-flows/issues/27"
EXPECTED = ("LOSS_UNBOUNDED_BELOW",)
STEPS = 400
LR = 3e-3
BATCH = 128
LAYERS = 4
MODES = ((2.0, 0.0), (-2.0, 0.0))
MODE_STD = 0.5


class AffineCoupling(nn.Module):
    """Keeps one coordinate, scales and shifts the other by functions of the kept one."""

    def __init__(self, keep):
        super().__init__()
        self.keep = keep
        self.net = nn.Sequential(nn.Linear(1, 32), nn.Tanh(), nn.Linear(32, 2))

    def forward(self, z):
        kept, moved = z[:, self.keep:self.keep + 1], z[:, 1 - self.keep:2 - self.keep]
        log_scale, shift = self.net(kept).chunk(2, dim=1)
        moved = moved * torch.exp(log_scale) + shift
        out = torch.cat([kept, moved], 1) if self.keep == 0 else torch.cat([moved, kept], 1)
        return out, log_scale.squeeze(1)


class Flow(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList(AffineCoupling(i % 2) for i in range(LAYERS))

    def forward(self, z):
        log_det = torch.zeros(len(z))
        for layer in self.layers:
            z, layer_log_det = layer(z)
            log_det = log_det + layer_log_det
        return z, log_det


def standard_normal_log_prob(z):
    return -0.5 * (z ** 2).sum(1) - math.log(2 * math.pi)


def target_log_prob(x):
    """Log density of an equal mixture of two Gaussians (std MODE_STD) at MODES."""
    terms = [-0.5 * ((x - torch.tensor(m)) ** 2).sum(1) / MODE_STD ** 2 for m in MODES]
    return torch.logsumexp(torch.stack(terms), 0) - math.log(len(MODES)) \
        - math.log(2 * math.pi * MODE_STD ** 2)


def reverse_kl(flow, z):
    """The true reverse KL(q || p) on a batch of base samples (the fixed twin's loss)."""
    x, log_det = flow(z)
    return (standard_normal_log_prob(z) - log_det - target_log_prob(x)).mean()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    flow = Flow()
    optimizer = torch.optim.Adam(flow.parameters(), lr=LR)
    with nd.watch(flow, optimizer, **watch) as mon:
        for _ in range(steps):
            optimizer.zero_grad()
            z = torch.randn(BATCH, 2)
            x, log_det = flow(z)
            if fixed:
                log_q = standard_normal_log_prob(z) - log_det
            else:
                # BUG: the change of variables' log-determinant added, not subtracted
                log_q = standard_normal_log_prob(z) + log_det
            loss = (log_q - target_log_prob(x)).mean()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.true_kl = reverse_kl(flow, torch.randn(4096, 2)).item()
    return mon
