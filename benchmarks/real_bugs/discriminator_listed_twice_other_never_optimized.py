"""A GAN with two discriminators (multi-resolution and multi-period, as in HiFi-GAN style
vocoders) builds the discriminators' optimizer from one of them listed twice: the other
discriminator is never optimized, and the first is stepped twice per step.

Reported: "Parameters of discriminator optimizer" -
https://github.com/line/open-universe/issues/5 ("params_disc =
list(self.loss_mrd.parameters()) + list(self.loss_mrd.parameters()) seems to have some
bugs ... it should be ... list(self.loss_mpd.parameters())"; the maintainer: "it looks like
the parameters of the mpd are never optimized..."). Here a generator completes the lower
half of a digit; two small discriminators (one on the whole image, one on its rows) judge
it, and the watched model is the pair of discriminators with their optimizer.
Fix: list each discriminator once.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "Parameters of discriminator optimizer"
LINK = "https://github.com/line/open-universe/issues/5"
EXPECTED = ("OPTIMIZER_MISSING_PARAMS", "OPTIMIZER_DUPLICATE_PARAMS", "FRAMEWORK_WARNING")
STEPS = 150
L1_WEIGHT = 10.0


class Discriminators(nn.Module):
    """Two critics: ``mrd`` reads the whole 8x8 image, ``mpd`` each row of 8 pixels."""

    def __init__(self):
        super().__init__()
        self.mrd = nn.Sequential(nn.Linear(64, 64), nn.LeakyReLU(0.2), nn.Linear(64, 1))
        self.mpd = nn.Sequential(nn.Linear(8, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))

    def forward(self, images):
        whole = self.mrd(images)
        rows = self.mpd(images.reshape(-1, 8, 8)).mean(dim=1)
        return whole, rows


def adversarial(scores, value):
    return sum(F.binary_cross_entropy_with_logits(s, torch.full_like(s, value))
               for s in scores)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    G = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 32), nn.Sigmoid())
    D = Discriminators()
    if fixed:
        params_disc = list(D.mrd.parameters()) + list(D.mpd.parameters())
    else:
        # BUG: mrd listed twice, mpd never: mpd keeps its random weights
        params_disc = list(D.mrd.parameters()) + list(D.mrd.parameters())
    opt_g = torch.optim.Adam(G.parameters(), lr=1e-3, betas=(0.5, 0.999))
    opt_d = torch.optim.Adam(params_disc, lr=1e-3, betas=(0.5, 0.999))
    with nd.watch(D, opt_d, **watch) as mon:
        for real, _ in batches(x, y, steps):
            top, bottom = real[:, :32], real[:, 32:]
            fake = torch.cat([top, G(top)], dim=1)
            opt_d.zero_grad()
            d_loss = adversarial(D(real), 1.0) + adversarial(D(fake.detach()), 0.0)
            d_loss.backward()
            opt_d.step()
            opt_g.zero_grad()
            g_loss = adversarial(D(fake), 1.0) + L1_WEIGHT * F.l1_loss(fake[:, 32:], bottom)
            g_loss.backward()
            opt_g.step()
            mon.step(d_loss)
    return mon
