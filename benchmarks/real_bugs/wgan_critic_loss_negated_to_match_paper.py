"""A weight-clipped WGAN whose critic loss was "corrected" to the paper's objective,
mean(D(real)) - mean(D(fake)), and minimised as it stands. The paper MAXIMISES that
difference; minimising it trains the critic to score generated digits above real ones,
while the generator's loss, -mean(D(fake)), still climbs the critic's score: the generator
now runs towards what the critic calls fake, away from the digits. Both losses print,
small and steady (the clipped critic bounds them), and the samples come out wrong -
inverted strokes, in the report.

Reported: "loss_D about wgan" - https://github.com/eriklindernoren/PyTorch-GAN/issues/17
("I fix loss_D = torch.mean(discriminator(real_imgs)) - torch.mean(discriminator(fake_imgs))
... I found the generated image is black number and white background"). Here the report's
loop on the 8x8 digits (1,200 training digits): an MLP generator and critic, RMSprop (at
5e-4, ten times the report's 5e-5, for a short run), the critic's weights clipped to
[-0.01, 0.01] after every critic step, a generator step every 5th batch; watched on the
critic. Fix: ``loss_D = -mean(D(real)) + mean(D(fake))``, the repository's own line.

Measured (1,000 critic steps, 200 generator steps; 512 samples against the 597 held-out
digits, mean distance from a sample to its nearest held-out digit / from a held-out digit
to its nearest sample, lower is better): 5.90 / 5.98 with the bug (the
samples are nothing like digits), 1.60 / 2.00 fixed; seeds + 1000: 5.83 / 5.95 vs 1.62 / 2.02.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._wgan336 import critic, digits, generator, held_out_distances, noise

TITLE = "loss_D about wgan"
LINK = "https://github.com/eriklindernoren/PyTorch-GAN/issues/17"
EXPECTED = ("LOSS_SIGN_FLIPPED",)
STEPS = 1000
N_CRITIC = 5
CLIP = 0.01


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, held_out = digits()
    G, D = generator(), critic()
    opt_g = torch.optim.RMSprop(G.parameters(), lr=5e-4)
    opt_d = torch.optim.RMSprop(D.parameters(), lr=5e-4)
    with nd.watch(D, opt_d, **watch) as mon:
        for i, (real, _) in enumerate(batches(x, y, steps)):
            opt_d.zero_grad()
            fake = G(noise(len(real))).detach()
            if fixed:
                loss_d = -torch.mean(D(real)) + torch.mean(D(fake))
            else:
                loss_d = torch.mean(D(real)) - torch.mean(D(fake))   # BUG: the paper's max
            loss_d.backward()
            opt_d.step()
            for p in D.parameters():
                p.data.clamp_(-CLIP, CLIP)
            mon.step(loss_d)
            if i % N_CRITIC == 0:
                opt_g.zero_grad()
                loss_g = -torch.mean(D(G(noise(len(real)))))
                loss_g.backward()
                opt_g.step()
    mon.held_out_distances = held_out_distances(G, held_out)
    return mon
