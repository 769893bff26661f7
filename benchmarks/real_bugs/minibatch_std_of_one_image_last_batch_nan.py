"""A GAN discriminator with a minibatch-standard-deviation layer (ProGAN's
``torch.std(x, dim=0)`` over the batch, averaged and appended as one more feature), fed by
a loader that keeps the last, partial batch of every epoch. The training set's size leaves
ONE image for that batch: the unbiased std of a single sample is 0 / 0 = NaN, the
discriminator's score is NaN, both losses are NaN, and the NaN gradients turn every weight
of both networks into NaN - from the first epoch's end on, the GAN trains on nothing.

Reported: "loss is NAN" - https://github.com/ziwei-jiang/PGGAN-PyTorch/issues/1 ("starting
from the second epoch, the loss is nan"; traced in the thread to Minibatch_std: "Lets say
you have a dataset of 65 images and a batch_size of 8 ... At the 9th iteration only one
sample is left ... std = torch.std(x, dim=0). This results in nan values since you try to
calculate the standard deviation of a single number"; the fix used: skip batches of one).
Here 1,393 of the 8x8 digits in batches of 16 (87 full batches, then one digit), a fully
connected generator and a discriminator with the minibatch-std feature, Adam at 2e-4.
Fix: drop the last, partial batch (``drop_last=True``).

Measured harm (sample coverage: mean distance from a held-out digit to its nearest
generated sample, lower is better; real digits score about 1.3): seed 0: nan vs 2.54;
seeds + 1000: nan vs 2.59.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._beginner_gan import mlp_generator, noise, sample_distances
from benchmarks.real_bugs._common import classification
from benchmarks.real_bugs._nan_losses import loader

TITLE = "loss is NAN"
LINK = "https://github.com/ziwei-jiang/PGGAN-PyTorch/issues/1"
EXPECTED = ("NORM_OVER_SINGLE_VALUE", "NAN_BORN_IN_FORWARD")
STEPS = 300
TRAIN = 1393          # 87 batches of 16 and one of 1
BATCH = 16


class MinibatchStd(nn.Module):
    """Appends the batch's mean per-feature standard deviation as one more feature."""

    def forward(self, x):
        std = torch.std(x, dim=0).mean()             # NaN for a batch of one
        return torch.cat([x, std.expand(len(x), 1)], dim=1)


def discriminator():
    return nn.Sequential(nn.Linear(64, 128), nn.LeakyReLU(0.2), MinibatchStd(),
                         nn.Linear(129, 128), nn.LeakyReLU(0.2), nn.Linear(128, 1))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, _ = classification()
    x, held_out = x[:TRAIN], x[1400:]
    G, D = mlp_generator(nn.Sigmoid()), discriminator()
    opt_g = torch.optim.Adam(G.parameters(), lr=2e-4, betas=(0.5, 0.999))
    opt_d = torch.optim.Adam(D.parameters(), lr=2e-4, betas=(0.5, 0.999))
    with nd.watch(D, opt_d, **watch) as mon:
        for index in loader(len(x), steps, BATCH):
            if fixed and len(index) < BATCH:             # BUG when not fixed: kept
                continue
            real = x[index]
            fake = G(noise(len(real)))
            opt_d.zero_grad()
            real_score, fake_score = D(real), D(fake.detach())
            d_loss = (F.binary_cross_entropy_with_logits(real_score, torch.ones_like(real_score))
                      + F.binary_cross_entropy_with_logits(fake_score,
                                                           torch.zeros_like(fake_score)))
            d_loss.backward()
            opt_d.step()
            opt_g.zero_grad()
            score = D(fake)
            g_loss = F.binary_cross_entropy_with_logits(score, torch.ones_like(score))
            g_loss.backward()
            opt_g.step()
            mon.step(d_loss)
    fidelity, coverage = sample_distances(G, held_out)
    mon.sample_fidelity, mon.sample_coverage = round(fidelity, 3), round(coverage, 3)
    return mon
