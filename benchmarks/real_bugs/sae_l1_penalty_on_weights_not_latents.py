"""A "sparse" autoencoder whose L1 penalty is put on the network's weights instead of on its
latent activations: the penalty shrinks parameters, not the code, so the representation it
was meant to make sparse stays dense - many latents fire for every input - and the
dictionary recovers the underlying features worse than a latent-penalised SAE.

Reported: "sparse_autoencoder_l1, does the l1 constrain really make the representation
sparse?" - https://github.com/syorami/Autoencoders-Variants/issues/1 (the thread sorts out the
confusion this case plants: "Here is a difference between sparsity on parameter and
sparsity on representation ... it is well known that l1 regularization encourages sparsity
on parameters ... I looked at your graph again and realize that it's a graph for sparsity
on parameters"; the repo's own script penalises activations - the penalty on the weights is
the mix-up the thread warns about, not that script's code). Here a 64-latent ReLU SAE on synthetic
activations (48 sparse ground-truth directions in 24 dimensions,
benchmarks/real_bugs/_sae.py), Adam, unit-norm decoder columns in both runs.
Fix: penalise the latents, ``loss = mse + l1 * z.abs().sum(1).mean()``.

Measured (held-out activations; MMCS = mean max cosine of the true directions with the
decoder columns): seed 0, held-out L0 53.8 vs 4.54, MMCS 0.498 vs 0.859;
seeds + 1000: L0 49.5 vs 4.68, MMCS 0.521 vs 0.801.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._sae import SAE, activations, data_batches, metrics, normalise_decoder

TITLE = ("sparse_autoencoder_l1, does the l1 constrain really make the representation "
         "sparse?")
LINK = "https://github.com/syorami/Autoencoders-Variants/issues/1"
EXPECTED = ("L1_PENALTY_WITHOUT_ZEROS",)
STEPS = 400
L1 = 1.0
L1_WEIGHTS = 1e-3


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, x_held_out, directions = activations()
    sae = SAE()
    optimizer = torch.optim.Adam(sae.parameters(), lr=3e-3)
    with nd.watch(sae, optimizer, **watch) as mon:
        for xb in data_batches(x, steps):
            optimizer.zero_grad()
            x_hat, z = sae(xb)
            loss = ((x_hat - xb) ** 2).sum(1).mean()
            if fixed:
                loss = loss + L1 * z.abs().sum(1).mean()
            else:   # BUG: the penalty on the parameters, not on the representation
                loss = loss + L1_WEIGHTS * sum(p.abs().sum() for p in sae.parameters())
            loss.backward()
            optimizer.step()
            normalise_decoder(sae)
            mon.step(loss)
    mon.extra = metrics(sae, x_held_out, directions)
    return mon
