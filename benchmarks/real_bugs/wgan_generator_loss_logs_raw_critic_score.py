"""A weight-clipped WGAN whose generator loss is a standard GAN's, -mean(log D(G(z))),
written over a Wasserstein critic that has no sigmoid. The critic's score is not a
probability: it is a small unbounded number (the clipped weights keep it near zero) that the
critic pushes below zero for generated samples. From the first generated sample scored below
zero the printed loss is NaN, yet the gradient of -log(s), -1/s, stays finite: the
generator keeps stepping, now DOWN the critic's score (for s < 0, -1/s > 0), weighted by
1/|s| - away from the digits, the harder the closer a score sits to zero.

Reported: "Error in fake_loss, line 110 of train_hybrid_wgan.py" -
https://github.com/marian42/shapegan/issues/2 ("fake_loss =
torch.mean(-torch.log(critic_output_fake)) => fake_loss = -torch.mean(critic_output_fake)";
the author: "Thank you for letting me know! I just fixed it"). Here the report's loop on the
8x8 digits (1,200 training digits): an MLP generator trained with Adam and an MLP critic
with RMSprop as in the report (both at 5e-4, fifty times the report's 1e-5, for a short
run), the critic's weights clipped to [-0.01, 0.01] after every critic step, a generator
step every 5th batch; watched on the generator. Fix: ``fake_loss = -mean(critic(fake))``.

Measured (1,000 critic steps, 200 generator steps; 512 samples against the 597 held-out
digits, mean distance from a sample to its nearest held-out digit / from a held-out digit
to its nearest sample, lower is better): 5.00 / 4.78 with the bug, 1.66 / 2.04
fixed; seeds + 1000: 5.03 / 4.83 vs 1.72 / 2.06.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._wgan336 import critic, digits, generator, held_out_distances, noise

TITLE = "Error in fake_loss, line 110 of train_hybrid_wgan.py"
LINK = "https://github.com/marian42/shapegan/issues/2"
EXPECTED = ("NAN_BORN_IN_FORWARD",)
STEPS = 200
N_CRITIC = 5
CLIP = 0.01


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, held_out = digits()
    G, D = generator(), critic()
    opt_g = torch.optim.Adam(G.parameters(), lr=5e-4)
    opt_d = torch.optim.RMSprop(D.parameters(), lr=5e-4)
    with nd.watch(G, opt_g, **watch) as mon:
        for index, (real, _) in enumerate(batches(x, y, steps * N_CRITIC)):
            opt_d.zero_grad()
            critic_loss = torch.mean(D(G(noise(len(real))).detach())) - torch.mean(D(real))
            critic_loss.backward()
            opt_d.step()
            with torch.no_grad():
                for p in D.parameters():
                    p.clamp_(-CLIP, CLIP)
            if index % N_CRITIC == 0:
                opt_g.zero_grad()
                critic_output_fake = D(G(noise(len(real))))
                if fixed:
                    fake_loss = torch.mean(-critic_output_fake)
                else:
                    fake_loss = torch.mean(-torch.log(critic_output_fake))   # BUG: no sigmoid
                fake_loss.backward()
                opt_g.step()
                mon.step(fake_loss)
    mon.held_out_distances = held_out_distances(G, held_out)
    return mon
