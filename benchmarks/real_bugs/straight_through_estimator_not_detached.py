"""A vector-quantised autoencoder whose straight-through estimator lost its detach:
``quantized = inputs + (quantized - inputs)``. The forward value is the codebook vector as
intended, but the two ``inputs`` terms now cancel in the backward pass too: the
reconstruction loss sends the encoder exactly zero gradient, and the encoder learns only
from the commitment term (to sit near whatever code it picked), never what the decoder
needs.

Reported: "Inconsistency Between Quantization Loss Implementation and Paper Description" -
https://github.com/NTU-AIoT-Lab/EfficientFi/issues/4 ("The paper describes an approach
similar to ``quantized = inputs + (quantized - inputs).detach()`` ... However, in the code,
it is written as ``quantized = inputs + (quantized - inputs)``", which "may lead to
incorrect gradient flow"). Here a small VQ autoencoder reconstructs the 8x8 digits through
4 latent slots quantised against a 16-entry codebook, with the codebook and commitment
terms of VQ-VAE. Fix: detach the difference, ``inputs + (quantized - inputs).detach()``.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "Inconsistency Between Quantization Loss Implementation and Paper Description"
LINK = "https://github.com/NTU-AIoT-Lab/EfficientFi/issues/4"
EXPECTED = ("STRAIGHT_THROUGH_NOT_DETACHED",)
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
        quantized = self.codebook(distances.argmin(dim=1)).view_as(inputs)
        vq_loss = F.mse_loss(quantized, inputs.detach()) + \
            COMMITMENT * F.mse_loss(inputs, quantized.detach())
        if self.fixed:
            quantized = inputs + (quantized - inputs).detach()
        else:
            quantized = inputs + (quantized - inputs)       # BUG: no detach, inputs cancel
        return self.decoder(quantized.reshape(len(x), -1)), vq_loss


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
