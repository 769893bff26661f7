"""An image autoencoder whose output layer ends in a ReLU. Pixels in [0, 1] are
non-negative, so the ReLU looks harmless, but an output unit whose pre-activation is
negative for every image outputs 0 and passes back no gradient: it never recovers, and
its pixel is reconstructed as black for every digit. Training runs, the loss falls (the
live pixels still learn), and nothing errors; the dead pixels set a floor on the error.

Reported: "Switch autoencoder example to use leakyrelu" -
https://github.com/FluxML/model-zoo/pull/34 ("Using normal relu causes a small portion of
the pixels in the reconstructed image to always be black. It's a bit subtle with normal
MNIST but becomes clear with other datasets like F-MNIST"; merged, the example's layers
switched to leakyrelu). Here the example's shape on the 8x8 digits: a dense autoencoder
64-16-64 with the activation on both layers, Adam at 1e-2 (the example's ADAM runs its
rate at 1e-3 on 784 pixels and 60,000 images; the digits' 1,285 images need the larger
rate to train in this many steps). Fix: leakyrelu on both layers.

Measured (600 steps, batch 64, 512 held-out digits; reconstruction MSE and the share of
output pixels that are 0 for every held-out digit while the digits there are not): seed
0, MSE 0.049 and 28% dead pixels for the bug against 0.012 and none for the fixed twin;
seeds shifted by 1000, 0.049 and 19% against 0.013 and none.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "Switch autoencoder example to use leakyrelu"
LINK = "https://github.com/FluxML/model-zoo/pull/34"
EXPECTED = ("DEAD_RELU",)
STEPS = 600
LR = 1e-2


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    train, held_out = x[:-512], x[-512:]
    def act():
        return nn.LeakyReLU(0.01) if fixed else nn.ReLU()  # BUG: relu, the output pixels too
    model = nn.Sequential(nn.Linear(64, 16), act(), nn.Linear(16, 64), act())
    optimizer = torch.optim.Adam(model.parameters(), lr=LR)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, _ in batches(train, y[:-512], steps):
            loss = F.mse_loss(model(xb), xb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        out = model(held_out)
        mon.reconstruction_error = F.mse_loss(out, held_out).item()
        dead = (out.abs().max(0).values < 1e-6) & (held_out.max(0).values > 0.25)
        mon.dead_pixel_share = dead.float().mean().item()
    return mon
