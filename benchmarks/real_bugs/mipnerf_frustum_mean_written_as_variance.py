"""A mip-NeRF-style radiance field whose conical-frustum Gaussian has its mean distance
along the ray computed with the formula of its variance. Each ray interval [t0, t1] is
encoded by the integrated positional encoding (IPE) of a Gaussian centred at
origin + mean_t * direction; with mean_t replaced by var_t (about 5e-4 here, where the
interval's true mean runs from 0 to 3) every interval of a ray is encoded as a blob at the
ray's origin. The field can no longer tell where along a ray it is: each training ray is
fitted by what sits at its own origin, no geometry is shared between views, and new views
come out wrong. The loss still falls on the training rays; nothing errors.

Reported: "Bugs in Block-NeRF" - https://github.com/sjtuytc/UnboundedNeRFPytorch/issues/120
(in block_nerf/rendering.py the mip-NeRF part's ``get_cone_mean_conv`` wrote ``mean_t``
with the same expression as ``variance_t``; the reporter calls it the most serious of the
errors found, one that directly makes the results very bad (in translation); the fix is
mip-NeRF's mean, t_mu + 2 t_mu t_delta^2 / (3 t_mu^2 + t_delta^2)). Here the flat scene of
benchmarks/real_bugs/_inr184.py (four solid discs of different greys seen from 32
directions by bundles of parallel rays, 40 intervals a ray over depths 0 to 3, composited
over white), each ray a cone of radius 0.025 at distance 1 (a pixel's footprint, as
mip-NeRF sets it), the mean and its IPE of 6 octaves into a 4-layer ReLU MLP of width 64,
softplus density, Adam 2e-3 on batches of 128 rays; every fourth view held out. Fix: the
mean as mip-NeRF computes it.

Measured (PSNR of the rendered views against the true ones, 500 steps): seed 0, held-out
views 8.4 dB for the bug against 18.4 dB for the fixed twin (training views 17.1 against
33.1); seeds shifted by 1000, 8.7 against 16.5 (17.2 against 24.1).
"""
import math

import torch
from torch import nn
from torch.nn import functional as F

from benchmarks.real_bugs._inr184 import FAR, NEAR, SAMPLES, psnr01, rays, scene, split, \
    train_rays

TITLE = "Bugs in Block-NeRF"
LINK = "https://github.com/sjtuytc/UnboundedNeRFPytorch/issues/120"
EXPECTED = ("ENCODING_IGNORES_SAMPLE_POSITION",)
STEPS = 500
LR = 2e-3
RADIUS = 0.025
OCTAVES = 6
EDGES = torch.linspace(NEAR, FAR, SAMPLES + 1)
WIDTH_T = (FAR - NEAR) / SAMPLES


def frustum_gaussians(origins, directions, fixed):
    """(means (rays, SAMPLES, 2), diagonal variances (rays, SAMPLES, 2)) of the conical
    frustums of each ray's intervals (mip-NeRF's closed forms)."""
    t_mu = (EDGES[1:] + EDGES[:-1]) / 2
    t_delta = (EDGES[1:] - EDGES[:-1]) / 2
    denominator = 3 * t_mu ** 2 + t_delta ** 2
    var_t = t_delta ** 2 / 3 - 4 / 15 * t_delta ** 4 * (12 * t_mu ** 2 - t_delta ** 2) \
        / denominator ** 2
    if fixed:
        mean_t = t_mu + 2 * t_mu * t_delta ** 2 / denominator
    else:
        mean_t = t_delta ** 2 / 3 - 4 / 15 * t_delta ** 4 * (12 * t_mu ** 2 - t_delta ** 2) \
            / denominator ** 2                        # BUG: the variance's formula
    r_var = RADIUS ** 2 * (t_mu ** 2 / 4 + 5 / 12 * t_delta ** 2
                           - 4 / 15 * t_delta ** 4 / denominator)
    means = origins[:, None] + mean_t[None, :, None] * directions[:, None]
    d2 = directions[:, None] ** 2
    variances = var_t[None, :, None] * d2 + r_var[None, :, None] * (1 - d2)
    return means, variances


def integrated_encoding(means, variances):
    """mip-NeRF's IPE: sin and cos of 2^k pi mean, damped by exp(-(2^k pi)^2 var / 2), after
    the mean itself (as NeRF's encoding keeps its input: the sample points reach 2.5 from the
    centre, beyond the period of the lowest octave)."""
    scales = 2.0 ** torch.arange(OCTAVES) * math.pi
    scaled = means[..., None] * scales
    damping = torch.exp(-0.5 * variances[..., None] * scales ** 2)
    return torch.cat([means, (torch.sin(scaled) * damping).flatten(-2),
                      (torch.cos(scaled) * damping).flatten(-2)], -1)


class MipField(nn.Module):
    def __init__(self, width=64, depth=4):
        super().__init__()
        layers = [nn.Linear(2 + 4 * OCTAVES, width), nn.ReLU()]
        for _ in range(depth - 1):
            layers += [nn.Linear(width, width), nn.ReLU()]
        self.mlp = nn.Sequential(*layers, nn.Linear(width, 2))

    def forward(self, features):
        raw = self.mlp(features)
        return F.softplus(raw[..., 0] - 1), torch.sigmoid(raw[..., 1])


def composite(density, grey):
    alpha = 1 - torch.exp(-density * WIDTH_T)
    transmittance = torch.cumprod(
        torch.cat([torch.ones_like(alpha[..., :1]), 1 - alpha[..., :-1] + 1e-10], -1), -1)
    weights = alpha * transmittance
    return (weights * grey).sum(-1) + (1 - weights.sum(-1))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    origins, directions, _ = rays()
    centres = (EDGES[1:] + EDGES[:-1]) / 2
    views = composite(*scene(origins[:, None] + centres[None, :, None] * directions[:, None]))
    features = integrated_encoding(*frustum_gaussians(origins, directions, fixed))
    train, held_out = split()
    field = MipField()
    optimizer = torch.optim.Adam(field.parameters(), lr=LR)
    mon = train_rays(field, optimizer, lambda f, rays_: composite(*f(features[rays_])), views,
                     steps, train, **watch)
    with torch.no_grad():
        rendered = composite(*field(features))
    mon.train_psnr = psnr01(rendered[train], views[train])
    mon.held_out_psnr = psnr01(rendered[held_out], views[held_out])
    return mon
