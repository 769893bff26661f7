"""A denoiser that its sampler reads as a noise (epsilon) predictor is trained against the
v-prediction target: the training script picks its target from the noise scheduler's
config, ``target = noise`` if ``prediction_type == "epsilon"`` else
``get_velocity(x0, noise, t)`` (v = sqrt(ab) * noise - sqrt(1 - ab) * x0), and the
scheduler config it loaded says ``v_prediction`` while the model and its sampler are the
epsilon kind. The network learns v well; read as epsilon it is wrong at every noise level
but the highest (at low t, v is mostly -x0).

Reported: "Bug inside Diffusers repo" -
https://github.com/TheLastBen/fast-stable-diffusion/issues/815
(the DreamBooth noise scheduler loaded with ``DDPMScheduler.from_config(...)`` from a
model's inference config; the reporter: "the V2-768 has the v_prediction parameter" ...
"if training SD v1.x, we need to force epsilon prediction type too by always setting
target = noise without checking the condition"; the maintainer: "with this change ... the
768 will not train at all" the other way round - the target must follow the model's kind).
Here a DDPM-style denoiser on the 8x8 digits (an MLP given x_t and t/T, 100 steps of a
linear beta schedule) whose sampler reads epsilon. Fix: the target of the model's own
kind, ``target = noise``.

Measured (400 steps, 512 held-out digits noised at random steps with a fixed generator;
the output read as epsilon, as the sampler reads it, MSE against the true noise): 0.729
for the bug, 0.367 for the fixed twin (the bug's training loss falls like the twin's).
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "Bug inside Diffusers repo"
LINK = "https://github.com/TheLastBen/fast-stable-diffusion/issues/815"
EXPECTED = ("DIFFUSION_TARGET_KIND_MISMATCH",)
STEPS = 400
T = 100
BETAS = torch.linspace(1e-4, 0.05, T)
ALPHA_BAR = torch.cumprod(1 - BETAS, dim=0)


class NoisePredictor(nn.Module):
    """Reads the noised image and the (scaled) diffusion step; its sampler reads epsilon."""

    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(65, 128), nn.SiLU(), nn.Linear(128, 128), nn.SiLU(),
                                 nn.Linear(128, 64))

    def forward(self, x_t, t):
        return self.net(torch.cat([x_t, (t.float() / T).unsqueeze(1)], dim=1))


def noised(x0, t, noise):
    a = ALPHA_BAR[t].unsqueeze(1)
    return a.sqrt() * x0 + (1 - a).sqrt() * noise


def get_velocity(x0, noise, t):
    a = ALPHA_BAR[t].unsqueeze(1)
    return a.sqrt() * noise - (1 - a).sqrt() * x0


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
    prediction_type = "epsilon" if fixed else "v_prediction"   # BUG: the config of another model
    with nd.watch(model, optimizer, **watch) as mon:
        for x0, _ in batches(train, y[:-512], steps):
            t = torch.randint(0, T, (len(x0),))
            noise = torch.randn_like(x0)
            target = noise if prediction_type == "epsilon" else get_velocity(x0, noise, t)
            loss = F.mse_loss(model(noised(x0, t, noise), t), target)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.noise_error = noise_error(model, held_out)
    return mon
