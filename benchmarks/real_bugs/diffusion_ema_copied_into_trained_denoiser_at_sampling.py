"""A diffusion training script samples with its EMA weights every epoch by copying the EMA
copy INTO the denoiser it is training (``ema.copy_to(model.parameters())``) and never
copies the live weights back. From then on every epoch restarts from the lagging average
while Adam's moments carry on from the lost weights: training is dragged back to the EMA
every evaluation, the loss steps up after each one and settles higher, and nothing errors
(the samples come from the right weights, so they even look plausible).

Reported: "Not copying the model in inference and assigning ema_weights seems incorrect." -
https://github.com/huggingface/diffusers/issues/2321 (after a refactor the
``train_unconditional.py`` example stopped deep-copying the unwrapped model before
``ema_model.copy_to(unet.parameters())`` for the sample pipeline, so the EMA weights
overwrote the weights being trained; a maintainer agreed the prepared and unwrapped models
share the parameters and fixed it by storing the live weights and restoring them after
sampling). Here: an MLP noise predictor on the 8x8 digits, 100 steps of a linear beta
schedule, Adam, an EMA with the warm-up decay min(0.999, (1 + n) / (10 + n)), "sampling"
every 100 steps. Fix: store the live weights before copying the EMA in, restore them after.

Measured (1,500 steps, batch 64; the EMA weights, what the script saves, scored by
noise-prediction MSE on 512 held-out digits noised at uniformly drawn steps with a fixed
generator, and by the mean distance from 256 ancestral samples to their nearest held-out
digit, 2.34 for held-out digits to the training set): seed 0, EMA noise MSE 0.337 for the
bug against 0.323 for the fixed twin, samples 4.65 from the data against 3.71; seeds shifted
by 1000, 0.338 against 0.323, samples 4.97 against 3.88.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._diff175 import (T, data, noise_error, noised, sample,
                                            sample_distance)

TITLE = "Not copying the model in inference and assigning ema_weights seems incorrect."
LINK = "https://github.com/huggingface/diffusers/issues/2321"
EXPECTED = ("WEIGHTS_REWRITTEN_OUTSIDE_OPTIMIZER",)
STEPS = 1500
EVERY = 100


class NoisePredictor(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(65, 128), nn.SiLU(), nn.Linear(128, 128), nn.SiLU(),
                                 nn.Linear(128, 64))

    def forward(self, x_t, t):
        return self.net(torch.cat([x_t, (t.float() / T).unsqueeze(1)], dim=1))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x_train, y_train, x_held, _ = data()
    model = NoisePredictor()
    ema = [p.detach().clone() for p in model.parameters()]
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for n, (x0, _) in enumerate(batches(x_train, y_train, steps)):
            t = torch.randint(0, T, (len(x0),))
            noise = torch.randn_like(x0)
            loss = F.mse_loss(model(noised(x0, t, noise), t), noise)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            decay = min(0.999, (1 + n) / (10 + n))
            with torch.no_grad():
                for e, p in zip(ema, model.parameters()):
                    e.mul_(decay).add_(p, alpha=1 - decay)
            mon.step(loss)
            if (n + 1) % EVERY == 0:                # "sample" with the EMA weights
                with torch.no_grad():
                    stored = [p.clone() for p in model.parameters()]
                    for e, p in zip(ema, model.parameters()):
                        p.copy_(e)
                    mon.sample_error = noise_error(model, x_held)
                    if fixed:                       # restore the weights being trained
                        for s, p in zip(stored, model.parameters()):
                            p.copy_(s)
    mon.raw_error = noise_error(model, x_held)
    with torch.no_grad():
        for e, p in zip(ema, model.parameters()):
            p.copy_(e)
    mon.ema_error = noise_error(model, x_held)
    mon.sample_distance = sample_distance(sample(model), x_held)
    return mon
