"""A VAE whose reconstruction loss hands its arguments to
``F.binary_cross_entropy_with_logits`` the wrong way round: the target images go in as
the logits and the decoder's logits as the targets. The loss is then linear in the
decoder's output (its slope is minus the target's value), so lowering it means pushing
every logit upwards without end; the loss falls forever and the reconstruction is lost.

Reported: "VAE loss" - https://github.com/autonomousvision/sledge/issues/4 ("I think there
is a mistake in ..._objective.py:55. The arguments of binary_cross_entropy_with_logits may
need to be swapped"; the authors: "you're right. We accidentally introduced the bug during
refactoring."). Here a small MLP VAE on the 8x8 digits (pixels in [0, 1]) with a KL term.
Fix: ``F.binary_cross_entropy_with_logits(logits, images)``.

Measured (400 steps, 512 held-out digits): the per-pixel reconstruction MSE of
sigmoid(logits) is 0.63 for the bug (its logits pushed up everywhere: near-white
images), 0.047 for the fixed twin.

As it came watch named the symptoms only (LOSS_UNBOUNDED_BELOW, LOSS_OSCILLATING,
EXPLODING_GRADIENTS). How watch finds it: on the first recorded steps the loss's graph holds
a BinaryCrossEntropyWithLogitsBackward0 node whose first input (the prediction) has no
graph while its second (the target) does: the call's arguments are swapped.
LOSS_ARGUMENTS_SWAPPED.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "VAE loss"
LINK = "https://github.com/autonomousvision/sledge/issues/4"
EXPECTED = ("LOSS_ARGUMENTS_SWAPPED",)
STEPS = 400
LATENT = 8


class VAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 2 * LATENT))
        self.decoder = nn.Sequential(nn.Linear(LATENT, 64), nn.ReLU(), nn.Linear(64, 64))

    def forward(self, x):
        mu, logvar = self.encoder(x).chunk(2, dim=1)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        return self.decoder(z), mu, logvar


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    train, held_out = x[:-512], x[-512:]
    model = VAE()
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, _ in batches(train, y[:-512], steps):
            logits, mu, logvar = model(xb)
            if fixed:
                reconstruction = F.binary_cross_entropy_with_logits(logits, xb)
            else:   # BUG: the images passed as the logits, the decoder's logits as targets
                reconstruction = F.binary_cross_entropy_with_logits(xb, logits)
            kl = -0.5 * torch.mean(1 + logvar - mu.pow(2) - logvar.exp())
            loss = reconstruction + 0.1 * kl
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        mon.reconstruction_error = F.mse_loss(torch.sigmoid(model(held_out)[0]),
                                              held_out).item()
    return mon
