"""What the hand-written VAE cases of real-bug batch 228 share: the 8x8 digits split into a
training and a held-out part, a small MLP VAE (Gaussian posterior, Bernoulli decoder on
logits), the training loop under ``nd.watch`` with the case's own loss, and the held-out
measures every run is scored by (the proper negative ELBO per image and the reconstruction
error from the posterior means), so a bug run and its fixed twin are measured the same way."""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

N_TRAIN = 1400


def digits():
    """(x_train, x_test): the first 1400 digits for training, the other 397 held out."""
    x, _ = classification()
    return x[:N_TRAIN], x[N_TRAIN:]


class VAE(nn.Module):
    """64 -> hidden -> (mu, logvar) of ``latent`` units; z = mu + eps * exp(logvar / 2);
    latent -> hidden -> 64 pixel logits."""

    def __init__(self, latent, hidden=128):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(64, hidden), nn.ReLU(),
                                     nn.Linear(hidden, 2 * latent))
        self.decoder = nn.Sequential(nn.Linear(latent, hidden), nn.ReLU(),
                                     nn.Linear(hidden, 64))

    def forward(self, x):
        mu, logvar = self.encoder(x).chunk(2, dim=1)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        return self.decoder(z), mu, logvar


def proper_negative_elbo(logits, x, mu, logvar):
    """Bernoulli reconstruction summed over pixels plus the Gaussian KL summed over latent
    units, averaged over images (nats per image)."""
    recon = F.binary_cross_entropy_with_logits(logits, x, reduction="none").sum(1)
    kl = -0.5 * (1 + logvar - mu ** 2 - logvar.exp()).sum(1)
    return (recon + kl).mean()


def held_out(model, x):
    """(negative ELBO per image, reconstruction MSE per pixel from the posterior means, mean
    KL per image) on ``x``, with a fixed noise draw (the caller's random state is put
    back)."""
    state = torch.random.get_rng_state()
    torch.manual_seed(12345)
    model.eval()
    with torch.no_grad():
        logits, mu, logvar = model(x)
        nelbo = proper_negative_elbo(logits, x, mu, logvar).item()
        mse = F.mse_loss(torch.sigmoid(model.decoder(mu)), x).item()
        kl = (-0.5 * (1 + logvar - mu ** 2 - logvar.exp()).sum(1)).mean().item()
    model.train()
    torch.random.set_rng_state(state)
    return nelbo, mse, kl


def train(loss_fn, steps, latent, lr=3e-3, batch_size=64, **watch):
    """Adam on the training digits under ``nd.watch`` with ``loss_fn(logits, x, mu, logvar,
    step)``; the closed monitor, with ``mon.nelbo``, ``mon.mse`` and ``mon.kl`` measured on
    the held-out digits."""
    torch.manual_seed(0)
    x_train, x_test = digits()
    model = VAE(latent)
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    with nd.watch(model, optimizer, **watch) as mon:
        for step, (xb, _) in enumerate(batches(x_train, x_train, steps, batch_size)):
            optimizer.zero_grad()
            logits, mu, logvar = model(xb)
            loss = loss_fn(logits, xb, mu, logvar, step)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.nelbo, mon.mse, mon.kl = held_out(model, x_test)
    return mon
