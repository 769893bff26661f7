"""What the conditional-GAN cases of real-bug batch 120 share: a small fully connected cGAN
on the 8x8 digits (the class enters both networks as a one-hot vector concatenated to their
input, as in the reports' MNIST scripts), its training loop, and the held-out measure: a
digit classifier trained on real digits judges generated images, one batch per requested
class, and the case reports how often the judged class is the requested one."""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

NOISE = 16
CLASSES = 10
LR = 1e-3
PER_CLASS = 100


def one_hot(labels):
    return F.one_hot(labels, CLASSES).float()


def generator():
    return nn.Sequential(nn.Linear(NOISE + CLASSES, 128), nn.ReLU(), nn.Linear(128, 128),
                         nn.ReLU(), nn.Linear(128, 64), nn.Tanh())


def discriminator():
    return nn.Sequential(nn.Linear(64 + CLASSES, 128), nn.LeakyReLU(0.2), nn.Linear(128, 128),
                         nn.LeakyReLU(0.2), nn.Linear(128, 1))


def judge(x, y):
    """A digit classifier on the first 1,500 real digits (about 0.92 on the rest)."""
    state = torch.random.get_rng_state()
    torch.manual_seed(1)
    clf = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, CLASSES))
    opt = torch.optim.Adam(clf.parameters(), lr=3e-3)
    for xb, yb in batches(x[:1500], y[:1500], 600, seed=5):
        opt.zero_grad()
        F.cross_entropy(clf(xb), yb).backward()
        opt.step()
    torch.random.set_rng_state(state)
    return clf


def train_cgan(generator_labels, steps, **watch):
    """Alternating discriminator / generator Adam steps under ``nd.watch(G, opt_g)``, with
    the cross-entropy GAN losses of the reports (the generator's: its fakes called real).
    With them the generator's loss climbs from its start as the discriminator learns, and
    its gradient grows a hundredfold, on the fixed twin as well: the ordinary course of that
    loss, which watch read as a blow-up until it knew which side of the game it watched
    (``curve.loss_through_rival``); the cases first used least-squares losses for that.
    The discriminator judges real images with their labels and fakes drawn for the same
    labels; the generator's step draws its own labels with ``generator_labels(batch)``
    (where the reports' bugs live). Returns the closed monitor with ``mon.class_match``
    (the judge's agreement with the requested class over all ten classes) and
    ``mon.class_match_per_class``."""
    torch.manual_seed(0)
    x, y = classification()
    scaled = x * 2 - 1                                  # tanh range, as the reports
    G, D = generator(), discriminator()
    opt_g = torch.optim.Adam(G.parameters(), lr=LR, betas=(0.5, 0.999))
    opt_d = torch.optim.Adam(D.parameters(), lr=LR, betas=(0.5, 0.999))
    with nd.watch(G, opt_g, **watch) as mon:
        for real, labels in batches(scaled, y, steps):
            n = len(real)
            fake = G(torch.cat([torch.randn(n, NOISE), one_hot(labels)], 1))
            opt_d.zero_grad()
            real_score = D(torch.cat([real, one_hot(labels)], 1))
            fake_score = D(torch.cat([fake.detach(), one_hot(labels)], 1))
            d_loss = F.binary_cross_entropy_with_logits(real_score, torch.ones_like(real_score)) \
                + F.binary_cross_entropy_with_logits(fake_score, torch.zeros_like(fake_score))
            d_loss.backward()
            opt_d.step()
            wanted = generator_labels(n)
            opt_g.zero_grad()
            drawn = G(torch.cat([torch.randn(n, NOISE), one_hot(wanted)], 1))
            score = D(torch.cat([drawn, one_hot(wanted)], 1))
            g_loss = F.binary_cross_entropy_with_logits(score, torch.ones_like(score))
            g_loss.backward()
            opt_g.step()
            mon.step(g_loss)
    clf = judge(x, y)
    state = torch.random.get_rng_state()
    torch.manual_seed(9)
    with torch.no_grad():
        requested = torch.arange(CLASSES).repeat(PER_CLASS)
        images = (G(torch.cat([torch.randn(len(requested), NOISE), one_hot(requested)], 1))
                  + 1) / 2
        judged = clf(images).argmax(1)
    torch.random.set_rng_state(state)
    mon.class_match = (judged == requested).float().mean().item()
    mon.class_match_per_class = [(judged[requested == k] == k).float().mean().item()
                                 for k in range(CLASSES)]
    return mon
