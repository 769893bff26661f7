"""A hand-written VQ autoencoder whose codebook loss is computed from the straight-through
output ``z_q = z_e + (e - z_e).detach()`` instead of from the looked-up codebook vectors
``e``: the codebook vectors appear only inside the ``.detach()``, so the codebook loss's
gradient goes to the encoder output (it becomes a second, oddly signed commitment term) and
the codebook receives no gradient at all. It stays at its small uniform initialisation,
the encoder is squeezed onto those few fixed points, and the reconstruction through the
quantiser stays poor while the training loss still falls.

Reported: "VQLAM: codebook never receives gradients (codebook loss uses the straight-through
output)" - https://github.com/showlab/Olaf-World/issues/8 ("this term has no gradient path
to vq.codebook.weight, and the codebook stays at its initialization"; "The reconstruction
loss still goes down, which makes this easy to miss"). Here an MLP VQ autoencoder on the 8x8
digits (1400 training images, 397 held out): 64 -> 128 -> 4 slots of 8 values, a 32-entry
codebook drawn uniform in (-1/32, 1/32), codebook loss plus 0.25 x commitment loss, MSE
reconstruction, Adam 2e-3, batches of 64, 300 steps.

Fix: the codebook loss between the looked-up vectors and the detached encoder output,
``F.mse_loss(e, z_e.detach())``, taken before the straight-through patch.

Measured (held-out reconstruction MSE per pixel): 0.074 with the bug, 0.031 fixed; seeds +
1000: 0.074 vs 0.033 (codebook entries used on the held-out digits: 4 vs 32 at both).
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._discrete_latents316 import digits, held_out_mse

TITLE = ("VQLAM: codebook never receives gradients (codebook loss uses the straight-through "
         "output)")
LINK = "https://github.com/showlab/Olaf-World/issues/8"
EXPECTED = ("NO_GRADIENT",)
STEPS = 300
SLOTS, CODE_DIM, CODES = 4, 8, 32
COMMITMENT = 0.25


class VQAutoencoder(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.fixed = fixed
        self.encoder = nn.Sequential(nn.Linear(64, 128), nn.ReLU(),
                                     nn.Linear(128, SLOTS * CODE_DIM))
        self.codebook = nn.Embedding(CODES, CODE_DIM)
        nn.init.uniform_(self.codebook.weight, -1 / CODES, 1 / CODES)
        self.decoder = nn.Sequential(nn.Linear(SLOTS * CODE_DIM, 128), nn.ReLU(),
                                     nn.Linear(128, 64))

    def forward(self, x):
        z_e = self.encoder(x).view(-1, CODE_DIM)
        codes = torch.cdist(z_e, self.codebook.weight).argmin(1)
        e = self.codebook(codes)
        z_q = z_e + (e - z_e).detach()                     # straight-through to the decoder
        if self.fixed:
            codebook_loss = F.mse_loss(e, z_e.detach())
        else:
            codebook_loss = F.mse_loss(z_q, z_e.detach())  # BUG: e is only inside detach()
        commitment_loss = F.mse_loss(z_e, e.detach())
        vq_loss = codebook_loss + COMMITMENT * commitment_loss
        return self.decoder(z_q.view(len(x), -1)), vq_loss, codes


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x_train, x_test = digits()
    model = VQAutoencoder(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, _ in batches(x_train, x_train, steps):
            optimizer.zero_grad()
            reconstruction, vq_loss, _ = model(xb)
            loss = F.mse_loss(reconstruction, xb) + vq_loss
            loss.backward()
            optimizer.step()
            mon.step(loss)
        mon.held_out_mse = held_out_mse(lambda x: model(x)[0], x_test)
        mon.codes_used = len(model(x_test)[2].unique())
    return mon
