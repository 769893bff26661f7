"""A heteroscedastic regressor predicts log sigma and is trained with a hand-written Gaussian
NLL that divides the squared error by sigma instead of sigma^2:
(y - mu)^2 / (2 sigma) + log sigma. The loss is minimised at sigma = (y - mu)^2 / 2, half
the noise VARIANCE, so the reported standard deviation is too small where the noise is
below sqrt(2) and its intervals miss their coverage; the mean is weighted by 1/sigma too.
Training looks healthy: the loss falls steadily.

Reported: "Some possible minor errors" -
https://github.com/orybkin/sigma-vae-pytorch/issues/11 (a user asks whether the Gaussian
NLL should be ``torch.pow((x - mu), 2) / log_sigma.exp()``; the author: "no you divide by
sigma squared as in my code"). Here a 1-D heteroscedastic regression (noise scale 0.1 to
0.7) with a mean and a log-sigma head, Adam, 128-row batches. Fix: divide by
``(2 * log_sigma).exp()``, i.e. 2 sigma^2.

Measured (held-out Gaussian NLL, nats, 1024 rows): bug 15.8 vs fixed 0.41;
seeds + 1000: 26.8 vs 0.52 (the bug's sigma is far too small where the noise is small).
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._prob import gaussian_nll, hetero_1d, minibatches, trunk

TITLE = "Some possible minor errors"
LINK = "https://github.com/orybkin/sigma-vae-pytorch/issues/11"
EXPECTED = ("VAE_NOISE_SCALED_BY_VARIANCE",)   # no code names it; the closest std/variance mix-up
STEPS = 300


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (x, y), (x_test, y_test) = hetero_1d()
    model = trunk(2)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in minibatches(x, y, steps):
            out = model(xb)
            mu, log_sigma = out[:, :1], out[:, 1:].clamp(-7, 5)
            if fixed:
                scale = (2 * log_sigma).exp()                 # sigma ** 2
            else:
                scale = log_sigma.exp()                       # BUG: sigma, not sigma ** 2
            loss = ((yb - mu) ** 2 / (2 * scale) + log_sigma).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        out = model(x_test)
        mon.held_out_nll = gaussian_nll(out[:, :1], out[:, 1:].clamp(-7, 5).exp(), y_test)
    return mon
