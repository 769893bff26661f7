"""A diffusion model's denoiser trained to reproduce its own noisy input: the loss is
``F.mse_loss(x_recon, x_noisy)`` where the network was meant to predict the noise it was
given (``F.mse_loss(x_recon, noise)``). The network's best answer is to copy x_noisy
through, so it learns the identity and nothing about the noise: sampling with it removes
no noise at all.

Reported: "A question about the argument in mse_loss" -
https://github.com/irom-princeton/dppo/issues/14 ("why does it need to ``return
F.mse_loss(x_recon, x_noisy, reduction="mean")`` instead of ``F.mse_loss(x_recon, x_start,
reduction="mean")``?"; the author: "Ah that is a bug --- we started by predicting
`x_start` at the beginning of the project, and then switched to predict epsilon instead.
At one point we made the bug."). Here a small DDPM-style noise predictor on the 8x8
digits (an MLP given x_t and t/T, 100 steps of a linear beta schedule). Fix: score the
prediction against the noise that made x_t.

Measured (400 steps, 512 held-out digits noised at random steps with a fixed generator):
the noise-prediction error (MSE against the true noise) is 0.64 for the bug (it returns
x_t, not the noise in it), 0.37 for the fixed twin.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "A question about the argument in mse_loss"
LINK = "https://github.com/irom-princeton/dppo/issues/14"
EXPECTED = ("DENOISING_TARGET_IS_NOISY_INPUT",)
STEPS = 400
T = 100
BETAS = torch.linspace(1e-4, 0.05, T)
ALPHA_BAR = torch.cumprod(1 - BETAS, dim=0)


class NoisePredictor(nn.Module):
    """Reads the noised image and the (scaled) diffusion step; predicts the noise."""

    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(65, 128), nn.SiLU(), nn.Linear(128, 128), nn.SiLU(),
                                 nn.Linear(128, 64))

    def forward(self, x_t, t):
        return self.net(torch.cat([x_t, (t.float() / T).unsqueeze(1)], dim=1))


def noised(x0, t, noise):
    a = ALPHA_BAR[t].unsqueeze(1)
    return a.sqrt() * x0 + (1 - a).sqrt() * noise


def noise_error(model, x0, seed=1):
    generator = torch.Generator().manual_seed(seed)
    t = torch.randint(0, T, (len(x0),), generator=generator)
    noise = torch.randn(x0.shape, generator=generator)
    with torch.no_grad():
        return F.mse_loss(model(noised(x0, t, noise), t), noise).item()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    x = x * 2 - 1                                   # pixels in [-1, 1], as DDPM scales them
    train, held_out = x[:-512], x[-512:]
    model = NoisePredictor()
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for x0, _ in batches(train, y[:-512], steps):
            t = torch.randint(0, T, (len(x0),))
            noise = torch.randn_like(x0)
            x_noisy = noised(x0, t, noise)
            x_recon = model(x_noisy, t)
            loss = F.mse_loss(x_recon, noise if fixed else x_noisy)   # BUG: target is x_noisy
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.noise_error = noise_error(model, held_out)
    return mon
