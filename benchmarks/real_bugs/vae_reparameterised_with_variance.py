"""A VAE whose reparameterisation draws z = mu + eps * exp(logvar): the variance where the
standard deviation exp(0.5 * logvar) belongs, while the KL term reads logvar as the log of
the variance. The noise the decoder sees and the KL the loss charges describe two different
posteriors; the posterior the model really samples from is penalised by the wrong amount,
and the true ELBO is worse than the fixed twin's.

Reported: "something wrong in normal reparametrization_gaussian" -
https://github.com/rachtsingh/ibp_vae/issues/3 ("return mu + (noise * logvar.exp()) ...
since logvar.exp() is variance, I think it should be corrected to (0.5 * logvar).exp() to
make it as standard-deviation. By changing this, I found that MNIST test IWAE becomes much
different"). Here a small MLP VAE on the 8x8 digits. Fix: eps * exp(0.5 * logvar).

After 600 steps the bug's true negative ELBO is 26.1 per image, the fixed twin's 24.7.

As it came watch was silent: the loss falls smoothly, every parameter trains. How watch
finds it: the forward's graph holds the noise product eps * exp(logvar), and the loss's
graph takes exp of the same logvar a second time, unsquared (the KL's variance): one
exp(logvar) drawn as a standard deviation, the other read as a variance.
VAE_NOISE_SCALED_BY_VARIANCE.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "something wrong in normal reparametrization_gaussian"
LINK = "https://github.com/rachtsingh/ibp_vae/issues/3"
EXPECTED = ("VAE_NOISE_SCALED_BY_VARIANCE",)
STEPS = 600
LR = 3e-3
LATENT = 8


class VAE(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.fixed = fixed
        self.encoder = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 2 * LATENT))
        self.decoder = nn.Sequential(nn.Linear(LATENT, 64), nn.ReLU(), nn.Linear(64, 64))

    def forward(self, x):
        mu, logvar = self.encoder(x).chunk(2, dim=1)
        if self.fixed:
            std = torch.exp(0.5 * logvar)
        else:
            std = logvar.exp()  # BUG: the variance used as the standard deviation
        return self.decoder(mu + torch.randn_like(mu) * std), mu, logvar


def negative_elbo(model, x, samples=8):
    """The true per-image negative ELBO of the posterior the model samples from."""
    torch.manual_seed(1)
    with torch.no_grad():
        mu, logvar = model.encoder(x).chunk(2, dim=1)
        log_std = 0.5 * logvar if model.fixed else logvar
        kl = 0.5 * (torch.exp(2 * log_std) + mu ** 2 - 1 - 2 * log_std).sum(1).mean()
        recon = 0.0
        for _ in range(samples):
            logits = model.decoder(mu + torch.randn_like(mu) * torch.exp(log_std))
            recon += F.binary_cross_entropy_with_logits(logits, x, reduction="sum") / len(x)
    return (recon / samples + kl).item()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = VAE(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=LR)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, _ in batches(x, y, steps):
            optimizer.zero_grad()
            logits, mu, logvar = model(xb)
            recon = F.binary_cross_entropy_with_logits(logits, xb, reduction="sum") / len(xb)
            kl = -0.5 * (1 + logvar - mu.pow(2) - logvar.exp()).sum(1).mean()
            loss = recon + kl
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.elbo = negative_elbo(model, x)
    return mon
