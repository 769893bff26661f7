"""A KL-sparsity autoencoder that adds the sparsity penalty for EVERY layer of the network -
the decoder's hidden layer and the reconstruction too - instead of only for the code layer:
the decoder is pushed to keep its own units (and the output pixels) near the target
activation rho = 0.1, which fights the reconstruction it exists to produce.

Reported: "In sparseencoder-KL method, why is sparsity constraint applied on all fc layers
across encoders and decoders?" - https://github.com/syorami/Autoencoders-Variants/issues/4
("the goal of sparse constraint is to enable only the "encoding" to be sparse. Why then is
sparsity loss accumulated across every fc layer of both the encoder and decoder?"). Here a
64-128-32-128-64 sigmoid autoencoder on the 8x8 digits (1,500 for training, 297 held out),
Adam, squared error summed over the pixels, KL weight 0.1 summed over the penalised
layers.
Fix: penalise only the code layer's mean activations.

Measured (held-out reconstruction MSE, pixels in [0, 1]): seed 0, 0.0702 vs 0.0358;
seeds + 1000: 0.0704 vs 0.0385 (0.070 is about what predicting each pixel's mean scores:
the output layer held near rho reconstructs little of the digit).
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = ("In sparseencoder-KL method, why is sparsity constraint applied on all fc layers "
         "across encoders and decoders?")
LINK = "https://github.com/syorami/Autoencoders-Variants/issues/4"
EXPECTED = ("ELBO_KL_OVERWEIGHTED",)
STEPS = 400
RHO = 0.1
BETA = 0.1
SPLIT = 1500
LR = 1e-2


class SparseAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(64, 128), nn.Linear(128, 32),
                                     nn.Linear(32, 128), nn.Linear(128, 64)])

    def forward(self, x):
        outputs = []
        for layer in self.layers:
            x = torch.sigmoid(layer(x))
            outputs.append(x)
        return x, outputs          # outputs[1] is the code


def kl_sparsity(activation):
    rho_hat = activation.mean(0).clamp(1e-6, 1 - 1e-6)
    return (RHO * torch.log(RHO / rho_hat)
            + (1 - RHO) * torch.log((1 - RHO) / (1 - rho_hat))).sum()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    order = torch.randperm(len(x))
    x, y = x[order], y[order]
    model = SparseAE()
    optimizer = torch.optim.Adam(model.parameters(), lr=LR)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, _ in batches(x[:SPLIT], y[:SPLIT], steps):
            optimizer.zero_grad()
            x_hat, outputs = model(xb)
            if fixed:
                sparsity = kl_sparsity(outputs[1])
            else:   # BUG: every layer's activations, the decoder's and the output's too
                sparsity = sum(kl_sparsity(a) for a in outputs)
            loss = ((x_hat - xb) ** 2).sum(1).mean() + BETA * sparsity
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        x_hat, outputs = model(x[SPLIT:])
        mse = float(nn.functional.mse_loss(x_hat, x[SPLIT:]))
    mon.extra = {"held_out_mse": round(mse, 4)}
    return mon
