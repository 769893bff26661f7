"""A stroke model's likelihood is handed the decoder's Gaussian scale ``dec_sigma`` where its
Bernoulli pen-state probability ``dec_rho`` goes: ``get_lossfunc(enc_mu, enc_sigma, dec_mu,
dec_sigma, dec_sigma, ...)``. The pen-bit term of the loss then reads the offset's standard
deviation as the probability that the pen is lifted, so (1) the rho head, the only thing the
sampler reads to decide when to lift the pen, never gets a gradient and stays at its
initial coin flip, and (2) the scale is pulled towards the pen bits' frequencies instead of
the offsets' noise, so the Gaussian is the wrong width as well. The loss still falls, and
every tensor stays finite.

Reported: "loss function doubt" - https://github.com/phreeza/tensorflow-vrnn/issues/4
("Is dec_rho replaced by the value of dec_sigma when calculating lossfunc = get_lossfunc(...)
for a specific reason or it is just a bug?"; the author: "Definitely looks like a bug, thanks
for catching it. Should be fixed now."). The repository's ``tf_normal`` scores the values
with a Gaussian (softplus scale) and, in its pen/sign term, each +-1 bit b with
``log(max(1e-20, rho)) * (1 + b) + log(max(1e-20, 1 - rho)) * (1 - b)``, rho from a sigmoid
head of its own (in the one version of ``model_vrnn.py`` read for this case that bit term
is commented out, so the swap there left rho with no loss at all; here the term is kept, as
written, so that the swap is what the report asks about). Here a small MLP decoder reads the last 3 steps of a synthetic pen trace
(offsets plus 2 pen bits: pen lifted, stroke ends) and predicts the next step with the same
heads (mu, softplus sigma, sigmoid rho) and the same loss, Adam, 128-row batches.
Fix: ``get_lossfunc(..., dec_mu, dec_sigma, dec_rho, ...)``.

Measured (held-out NLL of the next step, nats per step: offsets + pen bits, the bits read
from the rho head): 1.52 with the bug, 1.16 fixed; seeds + 1000: 1.38 vs 1.11.
"""
import math

import torch
from torch import nn
import torch.nn.functional as F

import nndebug as nd

TITLE = "loss function doubt"
LINK = "https://github.com/phreeza/tensorflow-vrnn/issues/4"
EXPECTED = ("NO_GRADIENT",)
STEPS = 300
HISTORY = 3          # [design] steps of the trace the decoder reads
N_TRAIN, N_TEST, BATCH = 4096, 2048, 128


def pen_trace(n):
    """(x, y): x = the last HISTORY steps (dx, dy, lifted, ends) flattened, y = the next
    step (dx, dy, lifted, ends) with the bits as +-1, as the repository's sampler writes
    them. The offsets turn smoothly along a curve; the pen lifts and strokes end with
    probabilities that depend on the speed and on whether the pen was lifted last step."""
    steps = HISTORY + 1
    angle = torch.rand(n, 1) * 2 * math.pi + torch.cumsum(torch.full((n, steps), 0.4)
                                                          + 0.3 * torch.randn(n, steps), 1)
    speed = 0.5 + torch.rand(n, 1) * 1.5
    dx = speed * torch.cos(angle) + 0.05 * torch.randn(n, steps)
    dy = speed * torch.sin(angle) + 0.05 * torch.randn(n, steps)
    lifted = torch.zeros(n, steps)
    ends = torch.zeros(n, steps)
    lifted[:, 0] = (torch.rand(n) < 0.3).float()
    ends[:, 0] = (torch.rand(n) < 0.2).float()
    for t in range(1, steps):
        p_lift = torch.sigmoid(3 * (speed[:, 0] - 1.2) - 2.5 * lifted[:, t - 1])
        lifted[:, t] = (torch.rand(n) < p_lift).float()
        p_end = torch.sigmoid(4 * lifted[:, t] - 2 + 2 * ends[:, t - 1] - 1)
        ends[:, t] = (torch.rand(n) < p_end).float()
    trace = torch.stack([dx, dy, lifted, ends], -1)             # (n, steps, 4)
    x = trace[:, :HISTORY].reshape(n, -1)
    y = trace[:, HISTORY].clone()
    y[:, 2:] = y[:, 2:] * 2 - 1
    return x, y


class Decoder(nn.Module):
    """The repository's decoder heads: mu (linear), sigma (softplus), rho (sigmoid)."""

    def __init__(self, hidden=64):
        super().__init__()
        self.hidden = nn.Sequential(nn.Linear(4 * HISTORY, hidden), nn.ReLU(),
                                    nn.Linear(hidden, hidden), nn.ReLU())
        self.mu = nn.Linear(hidden, 2)
        self.sigma = nn.Linear(hidden, 2)
        self.rho = nn.Linear(hidden, 2)

    def forward(self, x):
        h = self.hidden(x)
        return self.mu(h), F.softplus(self.sigma(h)), torch.sigmoid(self.rho(h))


def tf_normal(y, mu, s, rho):
    """The repository's per-row negative log-likelihood (its Gaussian term, and its pen-bit
    term with the bits b in {-1, +1})."""
    ss = torch.clamp(s ** 2, min=1e-10)
    z = (y[:, :2] - mu) ** 2 / ss
    gauss = (z + torch.log(2 * math.pi * ss)).sum(1) / 2
    bits = y[:, 2:]
    bern = -(torch.log(torch.clamp(rho, min=1e-20)) * (1 + bits)
             + torch.log(torch.clamp(1 - rho, min=1e-20)) * (1 - bits)).sum(1) / 2
    return gauss + bern


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = pen_trace(N_TRAIN)
    x_test, y_test = pen_trace(N_TEST)
    model = Decoder()
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            idx = torch.randint(0, N_TRAIN, (BATCH,))
            dec_mu, dec_sigma, dec_rho = model(x[idx])
            if fixed:
                loss = tf_normal(y[idx], dec_mu, dec_sigma, dec_rho).mean()
            else:
                loss = tf_normal(y[idx], dec_mu, dec_sigma, dec_sigma).mean()  # BUG: sigma as rho
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        mon.held_out_nll = float(tf_normal(y_test, *model(x_test)).mean())
    return mon
