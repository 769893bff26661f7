"""The discriminator's optimizer is built over the generator's parameters: its step
after the discriminator's backward finds no gradient on them (the fakes were detached),
the discriminator's own weights are in no optimizer, and the generator is trained for the
whole run against a critic frozen at its random initialisation.

Reported: "Error in this line" - https://github.com/bohaohuang/mrs/issues/68 ("I think
there are error in this line the second Adam optimizer for discriminator not for
generate"; the line, data/colormapgan.py: ``self.optm_d =
optim.Adam(self.generator.parameters(), lr=lr_d)``). Here, as in the report, a
least-squares GAN (an MSE criterion on the critic's score): a generator completes the
lower half of a digit from its upper half, the generator's step first, then the
discriminator's on detached fakes. Fix: build ``optm_d`` over the discriminator's
parameters.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "Error in this line"
LINK = "https://github.com/bohaohuang/mrs/issues/68"
EXPECTED = ("PARAMS_IN_TWO_OPTIMIZERS",)
STEPS = 150


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    generator = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 32), nn.Sigmoid())
    discriminator = nn.Sequential(nn.Linear(64, 64), nn.LeakyReLU(0.2), nn.Linear(64, 1))
    optm_g = torch.optim.Adam(generator.parameters(), lr=5e-4)
    # BUG: the discriminator's optimizer over the generator's parameters
    optm_d = torch.optim.Adam((discriminator if fixed else generator).parameters(), lr=1e-4)
    criterion = nn.MSELoss()
    with nd.watch(generator, optm_g, **watch) as mon:
        for real, _ in batches(x, y, steps):
            valid, fake = torch.ones(len(real), 1), torch.zeros(len(real), 1)
            top = real[:, :32]
            optm_g.zero_grad()
            fake_imgs = torch.cat([top, generator(top)], dim=1)
            g_loss = criterion(discriminator(fake_imgs), valid)
            g_loss.backward()
            optm_g.step()
            optm_d.zero_grad()
            real_loss = criterion(discriminator(real), valid)
            fake_loss = criterion(discriminator(fake_imgs.detach()), fake)
            d_loss = 0.5 * (real_loss + fake_loss)
            d_loss.backward()
            optm_d.step()
            mon.step(g_loss)
    return mon
