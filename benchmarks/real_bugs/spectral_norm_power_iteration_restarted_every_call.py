"""Spectral normalisation whose power-iteration vector is drawn afresh at every forward
pass instead of being kept from one call to the next. The method divides each weight by
an estimate of its largest singular value, made with one power-iteration step per call
from the vector the previous call left: over training the steps add up and the estimate
converges. Restarted from a random vector each time, one step gives ``|W v|`` for a v
that is only roughly the top right singular vector, which UNDER-estimates sigma, by more
the flatter W's spectrum; the divided weight's norm is then above 1, differently at every
call, and the critic is no longer 1-Lipschitz. Nothing errors and the critic's loss goes
down faster than the correct one's, because the constraint it is meant to respect is gone.

Reported: "slef.u can't be updated?" -
https://github.com/christiancosgrove/pytorch-spectral-normalization-gan/issues/1 (in the
SN-GAN re-implementation's ``SpectralNorm``, "``self.u`` ... seems never update during
training. And ``u`` in ``spectral_norm`` will be reinitialized with ``...normal_(0,1)`` in
every epoch"; the author moved u's initialisation into the module's constructor and kept
the updated u between calls). Here the critic of a Wasserstein GAN with the generator
held fixed: an MLP with three spectrally normalised linear layers
(benchmarks/real_bugs/_reg169.py) trained to tell N(0, I) in 16 dimensions from the same
shifted by 2 along one axis, whose Wasserstein-1 distance is exactly 2, Adam. Fix: one
u per layer, a buffer set at construction and updated in place by each training call.

Measured (the critic's estimate of W1 on 20,000 fresh points of each, true value 2.0;
the mean norm of its input gradient there, at most 1 for a 1-Lipschitz critic; both read
in eval mode, where the bug still draws a fresh u per call): seed 0: W1 estimate 5.21 for
the bug against 1.994 for the fixed twin (gradient norm 1.40 against 1.00); seeds
shifted by 1000: 22.2 against 1.996 (2.05 against 1.00).
"""
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._reg169 import DIM, critic_report, gaussian_pair

TITLE = "slef.u can't be updated?"
LINK = "https://github.com/christiancosgrove/pytorch-spectral-normalization-gan/issues/1"
EXPECTED = ("SPECTRAL_NORM_VECTOR_REDRAWN",)
STEPS = 600
BATCH = 256


class SpectralLinear(nn.Module):
    """A linear layer whose weight is divided by a power-iteration estimate of its top
    singular value."""

    def __init__(self, inputs, outputs, fixed):
        super().__init__()
        self.linear = nn.Linear(inputs, outputs)
        self.fixed = fixed
        self.register_buffer("u", F.normalize(torch.randn(outputs), dim=0))

    def forward(self, x):
        w = self.linear.weight
        if self.fixed:
            u = self.u
        else:       # BUG: a fresh random u at every call, the updated one thrown away
            u = F.normalize(torch.randn(w.shape[0]), dim=0)
        with torch.no_grad():
            v = F.normalize(w.t() @ u, dim=0)
            u = F.normalize(w @ v, dim=0)
            if self.fixed and self.training:
                self.u.copy_(u)
        sigma = u @ w @ v
        return F.linear(x, w / sigma, self.linear.bias)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    critic = nn.Sequential(SpectralLinear(DIM, 256, fixed), nn.ReLU(),
                           SpectralLinear(256, 256, fixed), nn.ReLU(),
                           SpectralLinear(256, 1, fixed))
    optimizer = torch.optim.Adam(critic.parameters(), lr=1e-3)
    with nd.watch(critic, optimizer, **watch) as mon:
        for _ in range(steps):
            p, q = gaussian_pair(BATCH)
            loss = critic(q).mean() - critic(p).mean()     # minimised: -(E_p f - E_q f)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.w1_estimate, mon.input_gradient_norm = critic_report(critic)
    return mon
