"""A sparse autoencoder whose KL sparsity penalty measures each code unit's activity as the
COUNT of samples where it is non-zero, ``(encoded > 0).sum(0)``: a comparison has no
gradient, so the KL term - printed in the loss, and large - changes no weight, and the code
stays as dense as without any penalty.

Reported: "Autoencoder sparsity term" -
https://discuss.pytorch.org/t/autoencoder-sparsity-term/96005 (a sparse autoencoder with a 4-unit ReLU bottleneck: "I would like to compute the activation
frequency of each output neuron over an entire batch, and try to minimize it",
``rho_hat = (encoded > 0).sum(dim=0)`` averaged over the batch, then
``kl_divergence(rho, rho_hat)`` added to the MSE). Here a 64-64-16-64-64 ReLU autoencoder on
the 8x8 digits (1,500 for training, 297 held out), Adam, target activity rho = 0.1,
KL weight 0.5.
Fix: a differentiable activity, here ``rho_hat = tanh(encoded / 0.05).mean(0)`` (a soft
"is active" in [0, 1)), or an L1 penalty on the code.

Measured (held-out share of code units that fire per digit): seed 0, 0.745 vs 0.156
(reconstruction MSE 0.0168 vs 0.0548); seeds + 1000: 0.558 vs 0.146 (MSE 0.0195 vs
0.0540): the bug's reconstruction is better because nothing constrains the code - the KL
printed in its loss changes no weight.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "Autoencoder sparsity term"
LINK = "https://discuss.pytorch.org/t/autoencoder-sparsity-term/96005"
EXPECTED = ("LOSS_TERM_WITHOUT_GRADIENT",)
STEPS = 400
RHO = 0.1
BETA = 0.5
SPLIT = 1500
SOFT = 0.05


class SparseAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 16), nn.ReLU())
        self.decoder = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 64))

    def forward(self, x):
        encoded = self.encoder(x)
        return encoded, self.decoder(encoded)


def kl_divergence(p, q):
    q = q.clamp(1e-6, 1 - 1e-6)
    return (p * torch.log(p / q) + (1 - p) * torch.log((1 - p) / (1 - q))).sum()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    order = torch.randperm(len(x))
    x, y = x[order], y[order]
    model = SparseAE()
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, _ in batches(x[:SPLIT], y[:SPLIT], steps):
            optimizer.zero_grad()
            encoded, outputs = model(xb)
            if fixed:
                rho_hat = torch.tanh(encoded / SOFT).mean(0)
            else:   # BUG: a count of the active samples - no gradient reaches the encoder
                rho_hat = (encoded > 0).sum(0) / len(xb)
            loss = nn.functional.mse_loss(outputs, xb) + BETA * kl_divergence(RHO, rho_hat)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        encoded, outputs = model(x[SPLIT:])
        active = float((encoded > 0).float().mean())
        mse = float(nn.functional.mse_loss(outputs, x[SPLIT:]))
    mon.extra = {"held_out_active_share": round(active, 3), "held_out_mse": round(mse, 4)}
    return mon
