"""A VAE whose two loss terms are both plain means: the reconstruction is the binary
cross-entropy averaged over the batch AND the pixels, the KL averaged over the batch AND
the latent units. Per image the ELBO sums both over their units; averaging both divides
the reconstruction by 64 (pixels) and the KL by 8 (latent units), so the KL weighs 8 times
what it should. The encoder gives up on its input (the posterior collapses onto the
prior) and every reconstruction is the same average digit, whatever the input.

Reported: "Should reconstruction loss be computed as sum or average over input for
variational autoencoders?" -
https://stats.stackexchange.com/questions/485488/should-reconstruction-loss-be-computed-as-sum-or-average-over-input-for-variatio
(the Keras VAE tutorial's ``reconstruction_loss = tf.reduce_mean(binary_crossentropy(data,
reconstruction))`` multiplied by 28 * 28 and ``kl_loss = -0.5 * tf.reduce_mean(1 +
z_log_var - tf.square(z_mean) - tf.exp(z_log_var))``; "I tried removing the
multiplication by (28x28), but this resulted in extremely poor reconstructions.
Essentially all the reconstructions looked the same regardless of the input"; the answer:
the loss has a precise derivation - the log-likelihood summed over the pixels - and
averaging changes the balance against the KL). Here a small MLP VAE on the 8x8 digits
(1400 for training, 397 held out), an 8-unit Gaussian latent, a Bernoulli decoder on
logits, Adam at 3e-3, batch 64, 300 steps.

Fix: sum the reconstruction over the pixels and the KL over the latent units, then
average both over the batch.

Measured on the held-out digits (reconstruction MSE per pixel decoding the posterior
means): bug 0.075 (the average digit's), KL 0.00 nats per image; fixed 0.036, KL 2.5;
seeds + 1000: 0.074 vs 0.037. The proper negative ELBO: 27.0 vs 24.9 nats per image;
seeds + 1000: 27.0 vs 25.1.
"""
import torch
from torch.nn import functional as F

from benchmarks.real_bugs._latent_models import train

TITLE = ("Should reconstruction loss be computed as sum or average over input for "
         "variational autoencoders?")
LINK = ("https://stats.stackexchange.com/questions/485488/should-reconstruction-loss-be-"
        "computed-as-sum-or-average-over-input-for-variatio")
EXPECTED = ("LOSS_TERMS_REDUCED_DIFFERENTLY",)
STEPS = 300
LATENT = 8


def run(fixed=False, steps=STEPS, **watch):
    def loss_fn(logits, x, z_mean, z_log_var, step):
        per_unit = 1 + z_log_var - z_mean ** 2 - torch.exp(z_log_var)
        if fixed:
            recon = F.binary_cross_entropy_with_logits(logits, x, reduction="none").sum(1)
            kl = -0.5 * per_unit.sum(1)
            return (recon + kl).mean()
        # BUG: both terms averaged over their elements - the pixels' sum and the latent
        # units' sum of the ELBO become means, the KL outweighs the reconstruction
        recon = F.binary_cross_entropy_with_logits(logits, x)
        kl = -0.5 * torch.mean(per_unit)
        return recon + kl

    return train(loss_fn, steps, LATENT, **watch)
