"""A diffusion model's forward process adds its noise scaled by ``1 - alpha_bar_t`` where
the DDPM marginal q(x_t | x_0) = N(sqrt(alpha_bar_t) x_0, (1 - alpha_bar_t) I) scales it by
``sqrt(1 - alpha_bar_t)``: ``x_t = sqrt(ab) * x0 + (1 - ab) * noise``. The noised images
are much less noisy than the schedule says at every step but the last few (at ab = 0.5 the
noise's std is 0.5 instead of 0.71, and sqrt(ab)^2 + (1 - ab)^2 < 1: x_t shrinks), so the
denoiser is trained on inputs the sampler never shows it: sampling starts from N(0, I) and
walks through the schedule's own noise levels, where the network has never been.

Reported: "Something wrong in L2_Training.ipynb" -
https://github.com/Ryota-Kawamura/How-Diffusion-Models-Work/issues/1 (DeepLearning.AI's
"How Diffusion Models Work" course notebook, ``perturb_input`` returns
``ab_t.sqrt()[t, None, None, None] * x + (1 - ab_t[t, None, None, None]) * noise``; the
reporter: "It should be (1 - ab_t[t, None, None, None]).sqrt() * noise according to the
formula in the DDPM paper"). Here a DDPM-style noise predictor on the 8x8 digits (an MLP
given x_t and t/T, 100 steps of a linear beta schedule). Fix: scale the noise by
``(1 - ab).sqrt()``.

Measured (400 steps, 512 held-out digits noised at random steps by the DDPM marginal, with
a fixed generator, as the sampler will present them): the noise-prediction error (MSE
against the true noise) is 0.379 for the bug, 0.367 for the fixed twin; the bug's own
training loss, on its under-noised inputs, is no worse than the twin's.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "Something wrong in L2_Training.ipynb"
LINK = "https://github.com/Ryota-Kawamura/How-Diffusion-Models-Work/issues/1"
EXPECTED = ("DIFFUSION_NOISE_SCALE_WRONG",)
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


def perturb_input(x0, t, noise, fixed):
    a = ALPHA_BAR[t].unsqueeze(1)
    if fixed:
        return a.sqrt() * x0 + (1 - a).sqrt() * noise
    return a.sqrt() * x0 + (1 - a) * noise          # BUG: the variance, not the std


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
            loss = F.mse_loss(model(perturb_input(x0, t, noise, fixed), t), noise)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.noise_error = noise_error(model, held_out)
    return mon
