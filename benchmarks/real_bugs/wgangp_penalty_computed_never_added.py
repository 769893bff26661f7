"""A WGAN-GP whose critic step computes the gradient penalty - interpolates between real
and generated digits, the critic's input gradient there, (norm - 1) ** 2 per sample - and
then backpropagates only the Wasserstein terms: the penalty is never added to the critic's
loss. Nothing holds the critic near 1-Lipschitz, its scores and slopes grow without bound,
and the generator follows a critic that only separates the two batches it last saw. The
loss still prints, and falls.

Reported: "gradient penalty was not actually implemented" -
https://github.com/LixiangHan/GANs-for-1D-Signal/issues/7 ("gradient penalty was not
actually implemented ... grad_penalty should be added to loss_D"). The reported script
(wgan_gp_train.py) builds ``grad_penalty`` and backpropagates ``loss_D = mean(D(fake) -
D(real))`` alone; it also kept the weight clipping of the WGAN script it was copied from,
left out here, and it differentiates ``netD(x_p).mean()``, which divides each sample's
gradient by the batch size; here the penalty reads each sample's own gradient (``.sum()``),
so the twin is the WGAN-GP the script sets out to be. Here an MLP generator and critic on
the 8x8 digits (1,200 training digits), one critic step per batch and a generator step every
5th as in the report, Adam with the WGAN-GP paper's betas (the report's commented-out
optimizer; its RMSprop trains neither version far in this many steps), watched on the
critic. Fix: ``loss_D = mean(D(fake)) - mean(D(real)) + 10 * mean((norm - 1) ** 2)``.

Measured (1,000 critic steps, 200 generator steps; 512 samples against the 597 held-out
digits, mean distance from a sample to its nearest held-out digit / from a held-out digit
to its nearest sample, lower is better): 1.74 / 2.05 with the bug, 1.42 /
1.58 fixed; seeds + 1000: 1.75 / 2.08 vs 1.43 / 1.60.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._wgan336 import critic, digits, generator, held_out_distances, noise

TITLE = "gradient penalty was not actually implemented"
LINK = "https://github.com/LixiangHan/GANs-for-1D-Signal/issues/7"
EXPECTED = ("LOSSES_NOT_BACKPROPAGATED",)
STEPS = 1000
N_CRITIC = 5
PENALTY = 10.0


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, held_out = digits()
    G, D = generator(), critic()
    opt_g = torch.optim.Adam(G.parameters(), lr=1e-3, betas=(0.5, 0.9))
    opt_d = torch.optim.Adam(D.parameters(), lr=1e-3, betas=(0.5, 0.9))
    with nd.watch(D, opt_d, **watch) as mon:
        for step, (real, _) in enumerate(batches(x, y, steps)):
            D.zero_grad()
            fake = G(noise(len(real)))
            eps = torch.rand(len(real), 1)
            between = eps * real + (1 - eps) * fake
            grad, = torch.autograd.grad(D(between).sum(), between, create_graph=True,
                                        retain_graph=True)
            grad_penalty = PENALTY * (grad.norm(2, dim=1) - 1) ** 2
            loss_d = torch.mean(D(fake.detach())) - torch.mean(D(real))
            if fixed:
                loss_d = loss_d + grad_penalty.mean()
            loss_d.backward()                       # BUG (fixed=False): grad_penalty unused
            opt_d.step()
            mon.step(loss_d)
            if step % N_CRITIC == 0:
                G.zero_grad()
                loss_g = -torch.mean(D(G(noise(len(real)))))
                loss_g.backward()
                opt_g.step()
    mon.held_out_distances = held_out_distances(G, held_out)
    return mon
