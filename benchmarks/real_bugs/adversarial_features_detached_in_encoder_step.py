"""Adversarial feature alignment trained GAN-style with two optimizers (the domain
discriminator's, and the encoder + task head's) whose encoder step detaches the source
features before the discriminator judges them. Detaching is right in the discriminator's
step; in the encoder's step it cuts the adversarial term off the encoder: the term still
has a value in the summed loss, but no gradient reaches the encoder, which never learns
domain-invariant features.

Reported: "Detach synthetic data for both D and B/H updating" -
https://github.com/jason718/game-feature-learning/issues/3 (the synthetic features are
detached while updating B and H, "then network B will not be able to learn
domain-invariant features"; the author: "yes, you are absolutely correct. this is a bug
and I fixed it"). Here the labelled source domain is half of the 8x8 digits, the
unlabelled target the other half with its contrast lowered (x * 0.6 + 0.3); a
discriminator (its own Adam) learns source 1 / target 0 on detached features; the encoder
and head (the watched model and optimizer) minimise the source cross-entropy plus 0.3 x
the discriminator's loss with the source labels flipped (make source features look like
target ones).
Fix: no .detach() on the source features in the encoder's step.

Measured (300 steps, Adam 1e-3, seed 0): the discriminator's loss (source + target BCE,
chance 1.39), mean of the last 10 steps: 0.60 with the bug (the domains stay separable,
the report's point) against 0.78 in the fixed twin. The target accuracy does NOT show the
harm at this size: 0.84 with the bug (source 0.95) against 0.66 in the twin (source
0.75) - on these 8x8 digits the source-only encoder already transfers well and the
GAN-style fooling term costs accuracy (also tried: target contrast x * 0.3 + 0.5, weights
0.1 and 0.3, and judging both domains - the twin never beat the bug on target accuracy).
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import classification

TITLE = "Detach synthetic data for both D and B/H updating"
LINK = "https://github.com/jason718/game-feature-learning/issues/3"
EXPECTED = ("LOSS_TERM_DETACHED_FROM_MODEL",)
STEPS = 300
BATCH = 64
ADVERSARIAL_WEIGHT = 0.3


class EncoderAndHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 32),
                                     nn.ReLU())
        self.head = nn.Linear(32, 10)

    def forward(self, x):
        features = self.encoder(x)
        return features, self.head(features)


def discriminator():
    return nn.Sequential(nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 1))


def domains(seed):
    x, y = classification()
    order = torch.from_numpy(np.random.default_rng(seed).permutation(len(x)))
    half = len(x) // 2
    return (x[order[:half]], y[order[:half]]), (x[order[half:]] * 0.6 + 0.3, y[order[half:]])


def bce(logits, value):
    return nn.functional.binary_cross_entropy_with_logits(
        logits.squeeze(1), torch.full((len(logits),), float(value)))


def run(fixed=False, steps=STEPS, critic_losses=None, **watch):
    """``critic_losses``: a list to append the discriminator's loss to, step by step
    (how the report's harm shows: the domains stay separable)."""
    torch.manual_seed(0)
    (xs, ys), (xt, _) = domains(0)
    rng = np.random.default_rng(1)
    model, critic = EncoderAndHead(), discriminator()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    critic_optimizer = torch.optim.Adam(critic.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            i = torch.from_numpy(rng.integers(0, len(xs), BATCH))
            j = torch.from_numpy(rng.integers(0, len(xt), BATCH))
            source_features, logits = model(xs[i])
            target_features, _ = model(xt[j])
            # the discriminator's step: features detached (right here)
            critic_loss = (bce(critic(source_features.detach()), 1)
                           + bce(critic(target_features.detach()), 0))
            critic_optimizer.zero_grad()
            critic_loss.backward()
            critic_optimizer.step()
            if critic_losses is not None:
                critic_losses.append(critic_loss.item())
            # the encoder + head step: fool the discriminator
            judged = source_features if fixed else source_features.detach()   # BUG
            loss = (nn.functional.cross_entropy(logits, ys[i])
                    + ADVERSARIAL_WEIGHT * bce(critic(judged), 0))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def accuracies(model, seed=0):
    """(source accuracy, target accuracy) of the trained encoder + head."""
    (xs, ys), (xt, yt) = domains(seed)
    with torch.no_grad():
        return tuple((model(x)[1].argmax(1) == y).float().mean().item()
                     for x, y in ((xs, ys), (xt, yt)))
