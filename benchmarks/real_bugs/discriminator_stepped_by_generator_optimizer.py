"""The training function is handed the generator's optimizer in the discriminator's slot:
the discriminator step zeroes and steps the generator's optimizer, the discriminator's own
optimizer is never used, and the discriminator stays at its random initialisation. The
generator's adversarial term then scores it against a critic that never learns.

Reported: "Train Code" - https://github.com/Lornatang/SRGAN-PyTorch/issues/85 ("I notice
that you specify 'g_optimizer' as discriminator optimizer and 'd_optimizer' is not used
during training model"; the author: "You're right. It's a mistake."). The same slip was
reported in the author's ESRGAN ("line 147 and 148 in train_gan.py are all
"g_optimizer"", https://github.com/Lornatang/ESRGAN-PyTorch/issues/39). Here a conditional
generator completes the lower half of a digit from its upper half with an L1 term and an
adversarial term; ``train_one_epoch`` takes both optimizers as arguments, as in the report.
Fix: pass ``d_optimizer`` in the discriminator's slot.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "Train Code"
LINK = "https://github.com/Lornatang/SRGAN-PyTorch/issues/85"
EXPECTED = ("REPEATED_OPTIMIZER_STEPS",)
STEPS = 150
L1_WEIGHT = 10.0


def generator():
    return nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 32), nn.Sigmoid())


def discriminator():
    return nn.Sequential(nn.Linear(64, 64), nn.LeakyReLU(0.2), nn.Linear(64, 1))


def train_one_epoch(G, D, data, g_optimizer, d_optimizer, mon):
    """One pass as the report's train(): the generator's step, then the discriminator's."""
    for real, _ in data:
        top, bottom = real[:, :32], real[:, 32:]
        ones, zeros = torch.ones(len(real), 1), torch.zeros(len(real), 1)
        fake = torch.cat([top, G(top)], dim=1)
        g_optimizer.zero_grad()
        adversarial = F.binary_cross_entropy_with_logits(D(fake), ones)
        g_loss = adversarial + L1_WEIGHT * F.l1_loss(fake[:, 32:], bottom)
        g_loss.backward()
        g_optimizer.step()
        d_optimizer.zero_grad()
        d_loss = F.binary_cross_entropy_with_logits(D(real), ones) + \
            F.binary_cross_entropy_with_logits(D(fake.detach()), zeros)
        d_loss.backward()
        d_optimizer.step()
        mon.step(g_loss)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    G, D = generator(), discriminator()
    g_optimizer = torch.optim.Adam(G.parameters(), lr=1e-3, betas=(0.5, 0.999))
    d_optimizer = torch.optim.Adam(D.parameters(), lr=1e-3, betas=(0.5, 0.999))
    with nd.watch(G, g_optimizer, **watch) as mon:
        # BUG: the generator's optimizer passed where the discriminator's belongs: D's
        # step zeroes and steps G's optimizer, and D never learns
        train_one_epoch(G, D, batches(x, y, steps), g_optimizer,
                        d_optimizer if fixed else g_optimizer, mon)
    return mon
