"""A diffusion loss weighted per sample by its noise level pairs every sample's weight with
every sample's error: the weights keep a trailing axis, (B, 1), while the error is reduced
to (B,), so ``weights * error`` broadcasts into a (B, B) table and its mean is
mean(weights) x mean(error). The weighting the loss was written for (here min-SNR-5,
``min(snr, 5) / snr`` for a noise predictor) is gone: every sample gets the batch's average
weight, whatever its noise level.

Reported: "DiffusionModel.compute_metrics: per-sample SNR weights broadcast against the
whole batch (loss = mean(w) * mean(err))" - https://github.com/bayesflow-org/bayesflow/issues/787
(``log_snr_t = expand_right_as(log_snr_t, x)`` gives (B, 1) weights; "The error is reduced
over the last axis only, while the weights keep a trailing singleton for every non-batch
axis. Right-aligned broadcasting then gives: vectors: (B, 1) * (B,) -> (B, B)";
``weighted_mean`` averages everything, so the loss factorises). Here a DDPM-style noise
predictor on the 8x8 digits (an MLP given x_t and t/T, 100 steps of a linear beta
schedule) with a min-SNR weight. Fix: squeeze the weights to (B,) (or keep the error's
axes) so each sample's weight meets its own error.

Measured (400 steps, 512 held-out digits noised at random steps with a fixed generator;
the min-SNR-weighted noise-prediction MSE, the objective the run was written to minimise):
0.212 for the bug, 0.204 for the fixed twin (each sample's own weight never reaches its
error, so the low-noise steps the weighting meant to damp are not damped).
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = ("DiffusionModel.compute_metrics: per-sample SNR weights broadcast against the whole "
         "batch (loss = mean(w) * mean(err))")
LINK = "https://github.com/bayesflow-org/bayesflow/issues/787"
EXPECTED = ("LOSS_BROADCAST_OVER_BATCH",)
STEPS = 400
T = 100
BETAS = torch.linspace(1e-4, 0.05, T)
ALPHA_BAR = torch.cumprod(1 - BETAS, dim=0)
GAMMA = 5.0


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


def snr_weights(t):
    snr = ALPHA_BAR[t] / (1 - ALPHA_BAR[t])
    return (torch.clamp(snr, max=GAMMA) / snr).unsqueeze(1)          # (B, 1), x's rank


def weighted_loss(prediction, noise, t, fixed):
    error = ((prediction - noise) ** 2).mean(dim=-1)                 # (B,)
    weights = snr_weights(t)
    if fixed:
        weights = weights.squeeze(1)
    return (weights * error).mean()                 # BUG: (B, 1) * (B,) -> (B, B)


def weighted_error(model, x0, seed=1):
    generator = torch.Generator().manual_seed(seed)
    t = torch.randint(0, T, (len(x0),), generator=generator)
    noise = torch.randn(x0.shape, generator=generator)
    with torch.no_grad():
        return weighted_loss(model(noised(x0, t, noise), t), noise, t, fixed=True).item()


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
            loss = weighted_loss(model(noised(x0, t, noise), t), noise, t, fixed)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.noise_error = weighted_error(model, held_out)
    return mon
