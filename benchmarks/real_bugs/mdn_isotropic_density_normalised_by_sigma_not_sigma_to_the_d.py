"""A mixture density network for a D-dimensional target gives each component one isotropic
standard deviation sigma, and writes the component density as
exp(-|y - mu|^2 / (2 sigma^2)) / (sigma * sqrt(2 pi)): the normaliser of a ONE-dimensional
Gaussian. A D-dimensional isotropic Gaussian is normalised by (sigma sqrt(2 pi))^D, so the
loss charges too little for a wide component: the fitted sigma comes out sqrt(D) times the
true scale (the squared distance summed over D coordinates is matched by one variance), and
the predicted densities are too wide. The loss falls and nothing crashes.

Reported: "Mixture Density Network" - https://github.com/keras-team/keras/issues/1061 (an
MDN loss posted in the thread, ``ps = T.exp(-(T.sum((tr - mu) ** 2, axis=-1)) /
(2 * sig ** 2)) / (sig * root_two_pi)`` with one sigma per component over D target
columns; the thread reports the loss going to inf and nan). Here a 3-component MDN with a
3-dimensional heteroscedastic target, the likelihood computed in log space (so it stays
finite). Fix: normalise by sigma ** D (``- D * log(sigma)`` in log space).

Measured (held-out mixture NLL with the right normaliser, nats, 1024 rows): bug 1.72 vs
fixed 1.32; seeds + 1000: 2.06 vs 1.33.
"""
import math

import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._prob import hetero_nd, minibatches, mixture_nll, trunk

TITLE = "Mixture Density Network"
LINK = "https://github.com/keras-team/keras/issues/1061"
EXPECTED = ("LOSS_TERMS_REDUCED_DIFFERENTLY",)   # squared error summed over D, log sigma once
STEPS = 300
K = 3
D = 3


def heads(model, x):
    out = model(x)
    log_pi = F.log_softmax(out[:, :K], dim=1)
    mean = out[:, K:K + K * D].view(-1, K, D)
    std = torch.exp(out[:, K + K * D:].clamp(-7, 5)).unsqueeze(-1)
    return log_pi, mean, std


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (x, y), (x_test, y_test) = hetero_nd(D)
    model = trunk(K + K * D + K)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in minibatches(x, y, steps):
            log_pi, mean, std = heads(model, xb)
            sq = ((yb.unsqueeze(1) - mean) ** 2).sum(-1)             # (N, K)
            sig = std.squeeze(-1)
            power = D if fixed else 1                               # BUG: sigma, not sigma ** D
            log_p = -sq / (2 * sig ** 2) - power * (torch.log(sig) + 0.5 * math.log(2 * math.pi))
            loss = -torch.logsumexp(log_pi + log_p, dim=1).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        mon.held_out_nll = mixture_nll(*heads(model, x_test), y_test)
    return mon
