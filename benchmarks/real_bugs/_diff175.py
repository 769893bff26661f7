"""What the diffusion cases of real-bug batch 175 share: the 8x8 digits scaled to [-1, 1] as
DDPM scales pixels (the last 512 held out), a 100-step linear beta schedule, the DDPM marginal
q(x_t | x_0) and a held-out noise-prediction error drawn with a fixed generator."""
import torch
from torch.nn import functional as F

from benchmarks.real_bugs._common import classification

T = 100
BETAS = torch.linspace(1e-4, 0.05, T)
ALPHA_BAR = torch.cumprod(1 - BETAS, dim=0)
NULL = 10                       # the "no label" class of classifier-free guidance


def data():
    """(x_train, y_train, x_held_out, y_held_out), pixels in [-1, 1]."""
    x, y = classification()
    x = x * 2 - 1
    return x[:-512], y[:-512], x[-512:], y[-512:]


def noised(x0, t, noise):
    a = ALPHA_BAR[t].unsqueeze(1)
    return a.sqrt() * x0 + (1 - a).sqrt() * noise


def noise_error(predict, x0, seed=1):
    """MSE of ``predict(x_t, t)`` against the true noise on ``x0`` noised at uniform steps
    (a fixed generator: every run is scored on the same draws)."""
    generator = torch.Generator().manual_seed(seed)
    t = torch.randint(0, T, (len(x0),), generator=generator)
    noise = torch.randn(x0.shape, generator=generator)
    with torch.no_grad():
        return F.mse_loss(predict(noised(x0, t, noise), t), noise).item()


def sample(predict, n=256, seed=2):
    """``n`` images drawn by ancestral DDPM sampling with ``predict(x_t, t)`` as the noise
    estimate (a fixed generator), clipped to [-1, 1]."""
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 64, generator=generator)
    with torch.no_grad():
        for step in reversed(range(T)):
            t = torch.full((n,), step, dtype=torch.int64)
            eps = predict(x, t)
            beta, alpha, a_bar = BETAS[step], 1 - BETAS[step], ALPHA_BAR[step]
            x = (x - beta / (1 - a_bar).sqrt() * eps) / alpha.sqrt()
            if step > 0:
                x = x + beta.sqrt() * torch.randn(x.shape, generator=generator)
    return x.clamp(-1, 1)


def sample_distance(samples, held_out):
    """Mean Euclidean distance of each sample to its nearest held-out digit (the held-out
    digits' own distance to the nearest training digit is the scale of a good sampler)."""
    return torch.cdist(samples, held_out).min(dim=1).values.mean().item()
