"""A hand-written VQ-VAE whose codebook is left at ``nn.Embedding``'s default draw, a
standard normal, where the VQ-VAE recipe draws it uniform in (-1/K, 1/K). The encoder's
outputs start near zero, so nearly every one of them is nearest to the same few codebook
vectors (those with the smallest norms); only the chosen vectors receive the codebook
loss's pull, the commitment loss pulls the encoder onto them, and the other entries are
never picked again (index collapse). The reconstruction loss falls, but through a handful
of codes the held-out reconstructions stay blurry.

Reported: "codebook initialization" -
https://github.com/lucidrains/vector-quantize-pytorch/issues/19 ("I have been having
problems with index collapse ... randn (normal distribution) is used to initialize them";
the maintainer switched to the uniform init of the paper). Here an MLP VQ autoencoder on
the 8x8 digits (1400 training images, 397 held out): 64 -> 128 -> 4 slots of 8 values, a
32-entry codebook, the straight-through copy of the decoder's gradient, codebook loss plus
0.25 x commitment loss, MSE reconstruction, Adam 2e-3, batches of 64, 300 steps.

Fix: ``nn.init.uniform_(codebook.weight, -1 / K, 1 / K)``.

Measured (held-out reconstruction MSE per pixel): 0.074 with the bug, 0.031 fixed; seeds +
1000: 0.074 vs 0.033 (codebook entries used on the held-out digits: 1 vs 32; seeds + 1000:
2 vs 32).
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._discrete_latents316 import digits, held_out_mse

TITLE = "codebook initialization"
LINK = "https://github.com/lucidrains/vector-quantize-pytorch/issues/19"
EXPECTED = ("INIT_SCALE_TOO_LARGE",)
STEPS = 300
SLOTS, CODE_DIM, CODES = 4, 8, 32
COMMITMENT = 0.25


class VQAutoencoder(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(64, 128), nn.ReLU(),
                                     nn.Linear(128, SLOTS * CODE_DIM))
        self.codebook = nn.Embedding(CODES, CODE_DIM)      # BUG: left at its N(0, 1) draw
        if fixed:
            nn.init.uniform_(self.codebook.weight, -1 / CODES, 1 / CODES)
        self.decoder = nn.Sequential(nn.Linear(SLOTS * CODE_DIM, 128), nn.ReLU(),
                                     nn.Linear(128, 64))

    def forward(self, x):
        z_e = self.encoder(x).view(-1, CODE_DIM)
        codes = torch.cdist(z_e, self.codebook.weight).argmin(1)
        z_q = self.codebook(codes)
        vq_loss = F.mse_loss(z_q, z_e.detach()) + COMMITMENT * F.mse_loss(z_e, z_q.detach())
        z_st = z_e + (z_q - z_e).detach()
        return self.decoder(z_st.view(len(x), -1)), vq_loss, codes


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
