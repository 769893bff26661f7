"""A sparse autoencoder's unit-norm constraint put on the ENCODER's weights instead of the
decoder's columns: the L1 penalty on the latents is still free to be dodged - the latents
shrink, the unconstrained decoder columns grow to make up for it - while the constraint
that is applied only hobbles the encoder, whose rows can no longer set how strongly each
latent fires.

Reported: "Remove constrained unit norm from encoder weights" -
https://github.com/ai-safety-foundation/sparse_autoencoder/pull/52 ("This should only be on
the decoder. Thanks to @HoagyC for pointing this out": the library's SAE had its encoder
declared with the unit-norm constraint meant for the decoder). Here a 64-latent ReLU SAE on
synthetic activations (48 sparse ground-truth directions in 24 dimensions,
benchmarks/real_bugs/_sae.py), Adam, L1 coefficient 1.0; the constraint is applied after
every step by renormalising the weights.
Fix: renormalise the decoder's columns (dim 0 of decoder.weight), leave the encoder free.

Measured (held-out activations; MMCS = mean max cosine of the true directions with the
decoder columns): seed 0, MMCS 0.761 vs 0.859, held-out L0 4.02 vs 4.54;
seeds + 1000: MMCS 0.729 vs 0.801, L0 4.14 vs 4.68.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._sae import SAE, activations, data_batches, metrics, normalise_decoder

TITLE = "Remove constrained unit norm from encoder weights"
LINK = "https://github.com/ai-safety-foundation/sparse_autoencoder/pull/52"
EXPECTED = ("L1_PENALTY_WITHOUT_ZEROS",)
STEPS = 400
L1 = 1.0


def normalise_encoder(sae):
    with torch.no_grad():
        sae.encoder.weight.copy_(F.normalize(sae.encoder.weight, dim=1))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, x_held_out, directions = activations()
    sae = SAE()
    optimizer = torch.optim.Adam(sae.parameters(), lr=3e-3)
    with nd.watch(sae, optimizer, **watch) as mon:
        for xb in data_batches(x, steps):
            optimizer.zero_grad()
            x_hat, z = sae(xb)
            loss = ((x_hat - xb) ** 2).sum(1).mean() + L1 * z.abs().sum(1).mean()
            loss.backward()
            optimizer.step()
            if fixed:
                normalise_decoder(sae)
            else:
                normalise_encoder(sae)      # BUG: the constraint on the wrong matrix
            mon.step(loss)
    mon.extra = metrics(sae, x_held_out, directions)
    return mon
