"""A sparse autoencoder trained with an L1 penalty on its latents, with no constraint on its
decoder's column norms: the penalty is paid on the latents' size, so the model shrinks the
latents and grows the decoder columns that multiply them - the reconstruction is unchanged,
the L1 term melts away, and the "sparse" dictionary stops being sparse or recovering the
features it should.

Reported: "[Question] Why x_hate_gate is computed with un-normalized
self.ae.decoder.weight.detach().T?" - https://github.com/saprmarks/dictionary_learning/issues/54
("Suppose ConstrainedAdam optimizer is not used. Wouldn't this allow the model to cheat the
L_sparse ...: f_gate shrinks slightly because of L_sparse, L_recon increases ..., so now it
tries to compensate by increasing decoder weights, and the pattern continues"). Here a
64-latent ReLU SAE on synthetic activations (48 sparse ground-truth directions in 24
dimensions, benchmarks/real_bugs/_sae.py), Adam, L1 coefficient 1.0.
Fix: renormalise the decoder's columns to unit norm after every step (what ConstrainedAdam
does), or scale each latent's penalty by its decoder column's norm.

Measured (held-out activations; MMCS = mean max cosine of the true directions with the
decoder columns): seed 0, MMCS 0.768 vs 0.859, held-out L0 4.74 vs 4.54;
seeds + 1000: MMCS 0.740 vs 0.801, L0 4.94 vs 4.68. The bug run's decoder columns end at
norm 1.87 on average (up to 2.52), and its held-out FVU is lower (0.262 vs 0.380 at seed
0): the dodged penalty buys reconstruction with features that are not the true ones.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._sae import SAE, activations, data_batches, metrics, normalise_decoder

TITLE = ("[Question] Why x_hate_gate is computed with un-normalized "
         "self.ae.decoder.weight.detach().T?")
LINK = "https://github.com/saprmarks/dictionary_learning/issues/54"
EXPECTED = ("L1_PENALTY_WITHOUT_ZEROS",)
STEPS = 400
L1 = 1.0


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
            # BUG when not fixed: the decoder's columns grow and the latents shrink under them
            mon.step(loss)
    mon.extra = metrics(sae, x_held_out, directions)
    return mon
