"""What the batch-199 cases (point clouds and set functions) share: the digits as 2-D point
clouds, a Chamfer distance, a small PointNet autoencoder and its held-out score, and
neighbour search. Each case keeps its own bug; this file holds the pieces around it.

Seeds: every draw here comes from a generator seeded by a draw of torch's global
generator, so ``torch.manual_seed`` at the top of a case (and the benchmark's seed shift)
moves them."""
import torch
from torch import nn

from benchmarks.real_bugs._common import classification

HELD_OUT = 297             # the last digits: never trained on, every case scores on them


def seeded_generator():
    """A private generator seeded from torch's global one (so manual_seed moves it)."""
    return torch.Generator().manual_seed(int(torch.randint(0, 2 ** 31 - 1, (1,))))


def digit_clouds(points, generator, spread=False):
    """Each 8x8 digit as ``points`` (column, row) pixel positions drawn with the pixel's ink
    as weight, centred on the image centre, in about [-0.5, 0.5]: x (N, points, 2) in an
    arbitrary (random) point order, y (N,) the digit. Each position is jittered by 0.02, or
    (``spread``) drawn uniformly inside its pixel's cell, so that neighbouring points trace
    the strokes instead of piling up on pixel centres."""
    images, labels = classification()
    picks = torch.multinomial(images + 1e-6, points, replacement=True, generator=generator)
    coords = torch.stack([(picks % 8).float(), (picks // 8).float()], 2)
    if spread:
        coords = coords + torch.rand(coords.shape, generator=generator) - 0.5
    else:
        coords = coords + 0.14 * torch.randn(coords.shape, generator=generator)
    return coords / 7 - 0.5, labels


def nearest_squared(a, b):
    """For each point of ``a`` (B, N, D) its squared distance to the nearest point of ``b``
    (B, M, D), and the other way round: ((B, N), (B, M))."""
    squared = ((a[:, :, None, :] - b[:, None, :, :]) ** 2).sum(-1)        # (B, N, M)
    return squared.min(dim=2)[0], squared.min(dim=1)[0]


def chamfer(a, b):
    """The symmetric Chamfer distance of each pair of clouds, (B,): mean nearest squared
    distance from a to b plus from b to a."""
    to_b, to_a = nearest_squared(a, b)
    return to_b.mean(dim=1) + to_a.mean(dim=1)


class PointAutoencoder(nn.Module):
    """PointNet encoder (shared per-point Conv1d layers, max over points) and an MLP decoder
    to ``out_points`` points. Reads and writes channels-first clouds, (B, 2, points)."""

    def __init__(self, out_points=32, code=64):
        super().__init__()
        self.out_points = out_points
        self.encoder = nn.Sequential(nn.Conv1d(2, 64, 1), nn.ReLU(), nn.Conv1d(64, 128, 1),
                                     nn.ReLU(), nn.Conv1d(128, code, 1))
        self.decoder = nn.Sequential(nn.Linear(code, 128), nn.ReLU(), nn.Linear(128, 256),
                                     nn.ReLU(), nn.Linear(256, 2 * out_points))

    def forward(self, x):                                        # x (B, 2, points)
        code = self.encoder(x).max(dim=2)[0]
        return self.decoder(code).view(-1, 2, self.out_points)   # (B, 2, out_points)


def held_out_chamfer(model, clouds):
    """Mean Chamfer distance between held-out clouds (B, N, 2) and their reconstructions."""
    model.eval()
    with torch.no_grad():
        rebuilt = model(clouds.transpose(1, 2)).transpose(1, 2)
    model.train()
    return chamfer(rebuilt, clouds).mean().item()


def digit_clouds_with_normals(points, generator, spread=False):
    """Each digit as ``points`` pixel positions (as ``digit_clouds``, ``spread`` as there)
    with a unit normal per point: the direction of the image's ink gradient at the picked
    pixel (across the stroke), zero where the image is flat. x (N, points, 4) = (x, y,
    normal x, normal y), y (N,)."""
    images, labels = classification()
    grid = images.view(-1, 8, 8)
    grad_rows, grad_cols = torch.gradient(grid, dim=(1, 2))
    picks = torch.multinomial(images + 1e-6, points, replacement=True, generator=generator)
    normals = torch.stack([grad_cols.reshape(-1, 64).gather(1, picks),
                           grad_rows.reshape(-1, 64).gather(1, picks)], 2)
    length = normals.norm(dim=2, keepdim=True)
    normals = torch.where(length > 1e-3, normals / length.clamp_min(1e-3),
                          torch.zeros_like(normals))
    coords = torch.stack([(picks % 8).float(), (picks // 8).float()], 2)
    if spread:
        coords = coords + torch.rand(coords.shape, generator=generator) - 0.5
    else:
        coords = coords + 0.14 * torch.randn(coords.shape, generator=generator)
    return torch.cat([coords / 7 - 0.5, normals], 2), labels


def rotations(count, generator):
    """``count`` random 2-D rotation matrices (count, 2, 2), angles uniform in [0, 2 pi)."""
    angle = 2 * torch.pi * torch.rand(count, generator=generator)
    cos, sin = angle.cos(), angle.sin()
    return torch.stack([torch.stack([cos, -sin], 1), torch.stack([sin, cos], 1)], 1)


def farthest_point_sample(points, count):
    """Indices (B, count) of ``count`` points of each cloud ``points`` (B, N, D) picked by
    farthest point sampling: the first point, then each time the point farthest from all
    picked so far (as the PointNet++ CUDA kernel does, starting at index 0)."""
    batch, n, _ = points.shape
    picked = torch.zeros(batch, count, dtype=torch.long)
    nearest = torch.full((batch, n), float("inf"))
    farthest = torch.zeros(batch, dtype=torch.long)
    rows = torch.arange(batch)
    for i in range(count):
        picked[:, i] = farthest
        gap = ((points - points[rows, farthest][:, None, :]) ** 2).sum(-1)
        nearest = torch.minimum(nearest, gap)
        farthest = nearest.argmax(dim=1)
    return picked
