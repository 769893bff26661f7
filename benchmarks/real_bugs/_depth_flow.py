"""Depth, disparity and optical-flow pieces the batch-134 cases share: small synthetic
scenes (16x16 grey images) whose motion, disparity or depth is known exactly, the
bilinear warping every such pipeline uses (``grid_sample`` with ``align_corners=True``), a
small fully convolutional network, and the end-point error the cases report.

A texture is white noise smoothed twice (3x3 box filters), scaled to [0, 1]; a smooth
field (flow, disparity, depth) is a coarse random grid upsampled bilinearly to the image
size. All draws come from torch's global generator, so ``torch.manual_seed`` at the top of
a case fixes the scenes and the network alike.
"""
import torch
from torch import nn
from torch.nn import functional as F

SIZE = 16


def textures(n, size=SIZE):
    """(n, 1, size, size) random textures in [0, 1] with a few pixels of correlation."""
    noise = torch.randn(n, 1, size + 8, size + 8)
    for _ in range(2):
        noise = F.avg_pool2d(noise, 3, stride=1)
    noise = noise[:, :, 2:2 + size, 2:2 + size]
    low = noise.amin(dim=(2, 3), keepdim=True)
    high = noise.amax(dim=(2, 3), keepdim=True)
    return (noise - low) / (high - low)


def smooth_field(n, channels, low, high, size=SIZE, cells=3):
    """(n, channels, size, size) smooth random values in [low, high]: a ``cells`` x
    ``cells`` grid of uniform draws upsampled bilinearly."""
    coarse = torch.rand(n, channels, cells, cells) * (high - low) + low
    return F.interpolate(coarse, size=(size, size), mode="bilinear", align_corners=True)


def pixel_grid(h, w):
    """(1, 2, h, w) pixel coordinates, x in channel 0 and y in channel 1."""
    ys, xs = torch.meshgrid(torch.arange(h, dtype=torch.float32),
                            torch.arange(w, dtype=torch.float32), indexing="ij")
    return torch.stack([xs, ys])[None]


def warp(image, flow, width_divisor=None, height_divisor=None):
    """Sample ``image`` at x + flow (bilinear, border padding, ``align_corners=True``):
    the backward warp of optical flow and stereo pipelines. The pixel coordinates are
    normalised to [-1, 1] by dividing by W - 1 and H - 1 (what ``align_corners=True``
    reads); ``width_divisor`` / ``height_divisor`` override those divisors."""
    _, _, h, w = image.shape
    coords = pixel_grid(h, w) + flow
    wd = (w - 1) if width_divisor is None else width_divisor
    hd = (h - 1) if height_divisor is None else height_divisor
    gx = 2.0 * coords[:, 0] / wd - 1.0
    gy = 2.0 * coords[:, 1] / hd - 1.0
    grid = torch.stack([gx, gy], dim=-1)
    return F.grid_sample(image, grid, mode="bilinear", padding_mode="border",
                         align_corners=True)


def flow_pairs(n, max_flow=2.0, size=SIZE):
    """(frame1, frame2, flow): frame1 is frame2 sampled at x + flow, so ``flow`` (n, 2, H, W,
    in pixels, |u|, |v| <= max_flow, smooth) is the forward flow of frame1 into frame2."""
    frame2 = textures(n, size)
    flow = smooth_field(n, 2, -max_flow, max_flow, size)
    frame1 = warp(frame2, flow)
    return frame1, frame2, flow


def appearance_and_disparity(n, low=0.5, high=3.0, size=SIZE):
    """A left view whose brightness also carries a monocular cue to its disparity (nearer
    is brighter, like haze), and that disparity: (image (n, 1, H, W), disparity (n, 1, H, W)
    in pixels, in [low, high])."""
    disparity = smooth_field(n, 1, low, high, size)
    cue = (disparity - low) / (high - low)
    return 0.4 * textures(n, size) + 0.6 * cue, disparity


def stereo_pairs(n, low=0.5, high=3.0, size=SIZE):
    """(left, right, disparity) of a rectified pair: a left pixel at x is seen in the right
    view at x - disparity(x) (a positive disparity moves right-view content left)."""
    left, disparity = appearance_and_disparity(n, low, high, size)
    zero = torch.zeros_like(disparity)
    right = warp(left, torch.cat([disparity, zero], dim=1))     # right(y) = left(y + d)
    return left, right, disparity


def reconstruct_left(right, disparity):
    """The left view rebuilt from the right one by the predicted disparity."""
    return warp(right, torch.cat([-disparity, torch.zeros_like(disparity)], dim=1))


def conv_net(inputs, outputs, width=32):
    """A small fully convolutional network (receptive field 13 pixels: enough to see a
    displacement of a few pixels either way)."""
    return nn.Sequential(
        nn.Conv2d(inputs, width, 3, padding=1), nn.ReLU(),
        nn.Conv2d(width, width, 3, padding=2, dilation=2), nn.ReLU(),
        nn.Conv2d(width, width, 3, padding=2, dilation=2), nn.ReLU(),
        nn.Conv2d(width, width, 3, padding=1), nn.ReLU(),
        nn.Conv2d(width, outputs, 3, padding=1))


def end_point_error(pred, target, mask=None):
    """Mean Euclidean distance of (n, c, H, W) vectors (c = 1: absolute error), over the
    pixels ``mask`` (n, 1, H, W) keeps, or over all."""
    distance = (pred - target).pow(2).sum(dim=1, keepdim=True).sqrt()
    if mask is None:
        return distance.mean().item()
    return (distance * mask).sum().item() / mask.sum().item()


def batches(n, steps, batch=16, seed=0):
    """``steps`` index batches into ``n`` scenes, reshuffled every epoch."""
    from benchmarks.real_bugs._common import index_batches
    return index_batches(n, steps, batch, seed)
