"""What the five VAE cases of real-bug batch 91 share: the loss they train with, the proper
negative ELBO they are measured by, and their training loop. Each case keeps its own model,
where its report's bug lives; ``fixed`` and ``proper=True`` switch that model to the right
draw, so the ELBO of every run is measured the same way."""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification


def vae_loss(logits, x, mu, logvar):
    """Bernoulli reconstruction summed over pixels, plus the Gaussian KL, per image."""
    recon = F.binary_cross_entropy_with_logits(logits, x, reduction="sum") / len(x)
    kl = -0.5 * (1 + logvar - mu ** 2 - logvar.exp()).sum(1).mean()
    return recon + kl


def negative_elbo(model, x):
    """The proper per-image negative ELBO, standard normal noise (a fixed generator; the
    caller's random state is put back)."""
    state = torch.random.get_rng_state()
    torch.manual_seed(12345)
    with torch.no_grad():
        logits, mu, logvar = model(x, proper=True)
        value = vae_loss(logits, x, mu, logvar).item()
    torch.random.set_rng_state(state)
    return value


def train_vae(make_model, steps, lr, **watch):
    """Adam on the digits under ``nd.watch``; the closed monitor, with ``mon.elbo`` set."""
    torch.manual_seed(0)
    x, y = classification()
    model = make_model()
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, _ in batches(x, y, steps):
            optimizer.zero_grad()
            logits, mu, logvar = model(xb)
            loss = vae_loss(logits, xb, mu, logvar)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.elbo = negative_elbo(model, x)
    return mon
