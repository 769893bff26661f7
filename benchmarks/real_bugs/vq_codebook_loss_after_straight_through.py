"""A vector-quantised autoencoder whose codebook loss is computed after the
straight-through patch: ``quantize = inputs + stop_gradient(quantize - inputs)`` first,
then ``commit_loss = mean((quantize - stop_gradient(inputs))**2)``. The patched
``quantize`` carries the gradient of the encoder's output, not of the codebook, so the loss
meant to pull the codebook vectors towards the encoder outputs pushes the encoder instead,
and the codebook receives no gradient at all: it stays at its initialisation.

Reported: "Possible bug in VQ loss gradient" -
https://github.com/andylolu2/jax-vqvae-gpt/issues/2 ("you're computing it after patching the
straight-through gradient onto the embeddings, so they actually now have the gradient of the
inputs"; the author: "What you said is indeed correct", fixed and retrained). The report's
code is JAX; ``jax.lax.stop_gradient`` is ``.detach()`` here. A small VQ autoencoder
reconstructs the 8x8 digits through 4 latent slots quantised against a 16-entry codebook.
Fix: compute both VQ losses from the codebook vectors before the straight-through patch.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "Possible bug in VQ loss gradient"
LINK = "https://github.com/andylolu2/jax-vqvae-gpt/issues/2"
EXPECTED = ("NO_GRADIENT",)
STEPS = 300
SLOTS, CODE_DIM, CODES = 4, 8, 16
COMMITMENT = 0.25


class VQAutoencoder(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.fixed = fixed
        self.encoder = nn.Sequential(nn.Linear(64, 64), nn.ReLU(),
                                     nn.Linear(64, SLOTS * CODE_DIM))
        self.codebook = nn.Embedding(CODES, CODE_DIM)
        nn.init.uniform_(self.codebook.weight, -1 / CODES, 1 / CODES)   # as VQ-VAE does
        self.decoder = nn.Sequential(nn.Linear(SLOTS * CODE_DIM, 64), nn.ReLU(),
                                     nn.Linear(64, 64))

    def forward(self, x):
        inputs = self.encoder(x).view(-1, SLOTS, CODE_DIM)
        distances = torch.cdist(inputs.reshape(-1, CODE_DIM), self.codebook.weight)
        quantize = self.codebook(distances.argmin(dim=1)).view_as(inputs)
        if self.fixed:
            encoding_loss = F.mse_loss(quantize.detach(), inputs)
            commit_loss = F.mse_loss(quantize, inputs.detach())
            quantize = inputs + (quantize - inputs).detach()
        else:
            quantize = inputs + (quantize - inputs).detach()
            encoding_loss = F.mse_loss(quantize.detach(), inputs)
            commit_loss = F.mse_loss(quantize, inputs.detach())  # BUG: after the patch
        vq_loss = commit_loss + COMMITMENT * encoding_loss
        return self.decoder(quantize.reshape(len(x), -1)), vq_loss


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = VQAutoencoder(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, _ in batches(x, y, steps):
            optimizer.zero_grad()
            reconstruction, vq_loss = model(xb)
            loss = F.mse_loss(reconstruction, xb) + vq_loss
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
