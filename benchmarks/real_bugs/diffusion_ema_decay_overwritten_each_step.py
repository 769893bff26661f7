"""The EMA of a diffusion denoiser stores the step's ``1 - decay`` in ``self.decay``: the
warm-up decay ``1 - min(self.decay, (1 + step) / (10 + step))`` is written back into the
attribute that holds the target decay, so the next step takes the minimum with that small
number. After ten steps the averaging weight sits at 0.5 for good: the "EMA" weights are
half the previous EMA and half the live weights, a copy of the live model lagging by a
step, where a 0.9999 decay (warmed up) was meant. Nothing in the training loss shows it;
only the samples of the EMA model, the one that gets saved and sampled, lose the averaging.

Reported: "EMA model in Stable Diffusion training example is wrong" -
https://github.com/huggingface/diffusers/issues/1864 ("The step call is updating
self.decay, which will then be used to compute the step-dependent-decay in the next steps,
resulting in a bit of a mess that makes EMA not really work as it should ... should be
``decay = ...`` in order not to affect the original decay value"; the maintainer: "great
catch! This is indeed a bug."). Here a DDPM-style noise predictor on the 8x8 digits (an
MLP given x_t and t/T, 100 steps of a linear beta schedule, Adam at a rate that leaves
the live weights noisy) with the diffusers-style EMA. Fix: keep the step's decay in a
local variable.

Measured (400 steps, 512 held-out digits noised at random steps with a fixed generator,
noise-prediction MSE of the EMA model, the one that would be sampled): 0.370 for the bug's
EMA, 0.350 for the fixed twin's EMA; the live weights of both score 0.379 (the training
itself is identical: only the average differs).
"""
import copy

import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "EMA model in Stable Diffusion training example is wrong"
LINK = "https://github.com/huggingface/diffusers/issues/1864"
EXPECTED = ("EMA_DECAY_COLLAPSED",)
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


class EMAModel:
    """diffusers' EMAModel of the time (examples/text_to_image/train_text_to_image.py)."""

    def __init__(self, model, decay=0.9999, fixed=True):
        self.shadow = copy.deepcopy(model).requires_grad_(False)
        self.decay, self.fixed, self.optimization_step = decay, fixed, 0

    def get_decay(self, optimization_step):
        value = (1 + optimization_step) / (10 + optimization_step)
        return 1 - min(self.decay, value)

    @torch.no_grad()
    def step(self, model):
        self.optimization_step += 1
        if self.fixed:
            one_minus_decay = self.get_decay(self.optimization_step)
        else:
            self.decay = self.get_decay(self.optimization_step)   # BUG: overwrites decay
            one_minus_decay = self.decay
        for s_param, param in zip(self.shadow.parameters(), model.parameters()):
            s_param.sub_(one_minus_decay * (s_param - param))


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
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
    ema = EMAModel(model, fixed=fixed)
    with nd.watch(model, optimizer, **watch) as mon:
        for x0, _ in batches(train, y[:-512], steps):
            t = torch.randint(0, T, (len(x0),))
            noise = torch.randn_like(x0)
            loss = F.mse_loss(model(noised(x0, t, noise), t), noise)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            ema.step(model)
            mon.step(loss)
    mon.noise_error = noise_error(ema.shadow, held_out)
    mon.live_error = noise_error(model, held_out)
    return mon
