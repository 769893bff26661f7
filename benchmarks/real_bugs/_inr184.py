"""What the batch-184 coordinate-network cases share: a flat scene for NeRF-style rendering
(density and grey level on the plane, seen by bundles of parallel rays from many directions
and rendered by the NeRF quadrature), NeRF's positional encoding and a small radiance-field
MLP, and an image-fitting loop for the image cases (the 64 x 64 digit mosaic of
benchmarks/real_bugs/_coordinate_fields.py). Each case keeps its own bug.

The scene: four discs of different grey levels and sizes inside the unit disc, in empty
space. Each of VIEWS directions sees it through RAYS parallel rays across [-1, 1], each ray
SAMPLES points from depth NEAR to FAR; every fourth view is held out."""
import math

import torch
from torch import nn
from torch.nn import functional as F

VIEWS, RAYS, SAMPLES = 32, 48, 40
NEAR, FAR = 0.0, 3.0
DELTA = (FAR - NEAR) / (SAMPLES - 1)
# (centre x, centre y, radius, density, grey): solid objects of different shades
DISCS = ((0.35, -0.2, 0.22, 30.0, 0.1), (-0.4, 0.3, 0.18, 30.0, 0.45),
         (-0.15, -0.45, 0.14, 30.0, 0.7), (0.3, 0.45, 0.12, 30.0, 0.25))
OCTAVES = 4


def rays():
    """(origins (VIEWS * RAYS, 2), unit directions (VIEWS * RAYS, 2), depths (SAMPLES,)): one
    bundle of parallel rays a view, entering the scene 1.5 before its centre."""
    angle = torch.arange(VIEWS) * 2 * math.pi / VIEWS
    direction = torch.stack([torch.cos(angle), torch.sin(angle)], -1)
    across = torch.stack([-torch.sin(angle), torch.cos(angle)], -1)
    offsets = torch.linspace(-1, 1, RAYS)
    origins = across[:, None] * offsets[None, :, None] - 1.5 * direction[:, None]
    directions = direction[:, None].expand(-1, RAYS, -1)
    return (origins.reshape(-1, 2), directions.reshape(-1, 2),
            torch.linspace(NEAR, FAR, SAMPLES))


def ray_points():
    """(VIEWS * RAYS, SAMPLES, 2) sample points of rays()."""
    origins, directions, depths = rays()
    return origins[:, None] + depths[None, :, None] * directions[:, None]


def scene(points):
    """(density, grey) of the true scene at ``points`` (..., 2)."""
    density = torch.zeros(points.shape[:-1])
    grey = torch.ones(points.shape[:-1])
    for cx, cy, radius, sigma, shade in DISCS:
        inside = (points - torch.tensor([cx, cy])).norm(dim=-1) < radius
        density = torch.where(inside, torch.full_like(density, sigma), density)
        grey = torch.where(inside, torch.full_like(grey, shade), grey)
    return density, grey


def weights_from_density(density):
    """NeRF's quadrature weights: alpha_i times the EXCLUSIVE product of (1 - alpha_j), j < i
    (the transmittance that reaches sample i starts at 1)."""
    alpha = 1 - torch.exp(-density * DELTA)
    transmittance = torch.cumprod(
        torch.cat([torch.ones_like(alpha[..., :1]), 1 - alpha[..., :-1] + 1e-10], -1), -1)
    return alpha * transmittance


def composite(weights, grey, background=1.0):
    """Ray colour: the weighted greys plus the background behind what is left."""
    return (weights * grey).sum(-1) + (1 - weights.sum(-1)) * background


def split():
    """(training ray indices, held-out ray indices): every fourth view held out."""
    view = torch.arange(VIEWS).repeat_interleave(RAYS)
    return (torch.nonzero(view % 4 != 0).squeeze(1), torch.nonzero(view % 4 == 0).squeeze(1))


def positional_encoding(points, octaves=OCTAVES):
    """NeRF's encoding: the point, then sin and cos of 2^k pi x for k < octaves."""
    scaled = points[..., None] * (2.0 ** torch.arange(octaves) * math.pi)
    return torch.cat([points, torch.sin(scaled).flatten(-2), torch.cos(scaled).flatten(-2)], -1)


class Field(nn.Module):
    """A radiance field on the plane: encoded point -> (raw density, raw grey)."""

    def __init__(self, width=64, depth=4):
        super().__init__()
        layers = [nn.Linear(2 + 4 * OCTAVES, width), nn.ReLU()]
        for _ in range(depth - 1):
            layers += [nn.Linear(width, width), nn.ReLU()]
        self.mlp = nn.Sequential(*layers, nn.Linear(width, 2))

    def forward(self, points):
        raw = self.mlp(positional_encoding(points))
        return F.softplus(raw[..., 0] - 1), torch.sigmoid(raw[..., 1])


def psnr01(prediction, target):
    """PSNR in dB for grey levels in [0, 1] (peak 1)."""
    mse = float(((prediction - target) ** 2).mean())
    return round(10 * math.log10(1 / mse), 2)


def train_rays(model, optimizer, render, targets, steps, train, batch=128, **watch):
    """Random batches of training rays, MSE of ``render(model, ray indices)`` against
    ``targets``, under nd.watch; returns the closed monitor. The batches come from a private
    generator seeded from the case's seed (so the bug and its twin see the same rays)."""
    import nndebug as nd
    draw = torch.Generator().manual_seed(torch.initial_seed() + 1)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            rays = train[torch.randint(len(train), (batch,), generator=draw)]
            optimizer.zero_grad()
            loss = F.mse_loss(render(model, rays), targets[rays])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


class GridEncoding(nn.Module):
    """A multiresolution dense grid encoding on the unit square (Instant-NGP's, without the
    hashing): one learnable grid of ``features`` per resolution, read by bilinear
    interpolation at the input position and concatenated. Like tiny-cuda-nn's, it reads its
    input as a position in [0, 1]^2 and clamps what lies outside onto the border."""

    def __init__(self, resolutions, features=4, init=0.1):
        super().__init__()
        self.out_features = features * len(resolutions)
        self.grids = nn.ParameterList(
            nn.Parameter(torch.empty(1, features, r + 1, r + 1).uniform_(-init, init))
            for r in resolutions)

    def forward(self, unit):
        unit = unit.clamp(0, 1)                  # positions outside the square: its border
        where = (unit * 2 - 1)[None, :, None, :]         # grid_sample reads [-1, 1]
        return torch.cat([F.grid_sample(grid, where, align_corners=True)[0, :, :, 0].t()
                          for grid in self.grids], -1)


class GridField(nn.Module):
    """A grid encoding into a 2-layer ReLU MLP of width 64 with one output."""

    def __init__(self, resolutions):
        super().__init__()
        self.encoding = GridEncoding(resolutions)
        self.mlp = nn.Sequential(nn.Linear(self.encoding.out_features, 64), nn.ReLU(),
                                 nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1))

    def forward(self, unit):
        return self.mlp(self.encoding(unit))


def fit_pixels(model, inputs, steps, lr, **watch):
    """Fit the digit mosaic (benchmarks/real_bugs/_coordinate_fields.py) from ``inputs`` (one
    row a pixel) full-batch with Adam under nd.watch; the monitor comes back with the PSNR
    of the training and held-out pixels as ``train_psnr`` and ``held_out_psnr``."""
    import nndebug as nd
    from benchmarks.real_bugs._coordinate_fields import digit_mosaic, psnr
    from benchmarks.real_bugs._coordinate_fields import split as pixel_split
    grid, image = digit_mosaic()
    train, held_out = pixel_split(len(grid))
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            optimizer.zero_grad()
            loss = F.mse_loss(model(inputs[train]), image[train])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        prediction = model(inputs)
    mon.train_psnr = psnr(prediction[train], image[train])
    mon.held_out_psnr = psnr(prediction[held_out], image[held_out])
    return mon
