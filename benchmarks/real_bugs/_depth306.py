"""Monocular depth pieces the batch-306 cases share: small synthetic scenes whose metric
depth is known exactly, sensor holes stored as 0 (what Kinect/LiDAR depth maps and their
PNG files hold where nothing was measured), a small fully convolutional depth network with
a positive output, and the error measures depth papers report.

A scene is a 16x16 grey image whose brightness carries a monocular cue to a smooth depth
in metres (nearer is brighter, like haze; ``_depth_flow.appearance_and_disparity``), the
depth spanning 1 to 5 m. All draws come from torch's global generator, so
``torch.manual_seed`` at the top of a case fixes the scenes and the network alike.
"""
import torch
from torch import nn
from torch.nn import functional as F

from benchmarks.real_bugs._depth_flow import appearance_and_disparity, conv_net

NEAR, FAR = 1.0, 5.0


def scenes(n, size=16):
    """(image (n, 1, size, size) in [0, 1], depth (n, 1, size, size) in metres)."""
    image, disparity = appearance_and_disparity(n, 0.5, 3.0, size)
    depth = FAR - (disparity - 0.5) / 2.5 * (FAR - NEAR)        # bright = near
    return image, depth


def holes(n, size, share=0.2, cells=9):
    """(n, 1, size, size) 1 where the sensor measured, 0 in blob-shaped holes covering
    about ``share`` of the pixels (a coarse random field thresholded, then upsampled)."""
    coarse = torch.rand(n, 1, cells, cells)
    field = F.interpolate(coarse, size=(size, size), mode="bilinear", align_corners=True)
    field = field + 0.15 * torch.rand(n, 1, size, size)
    cut = torch.quantile(field.flatten(1), share, dim=1).view(n, 1, 1, 1)
    return (field > cut).float()


class DepthNet(nn.Module):
    """The small conv net of ``_depth_flow`` with a softplus head: depth in metres, > 0."""

    def __init__(self):
        super().__init__()
        self.body = conv_net(1, 1, width=16)

    def forward(self, image):
        return F.softplus(self.body(image)) + 1e-3


def abs_rel(pred, depth, valid=None):
    """Mean |pred - depth| / depth over the pixels ``valid`` keeps (all when None)."""
    error = (pred - depth).abs() / depth
    if valid is None:
        return error.mean().item()
    return ((error * valid).sum() / valid.sum()).item()


def rmse(pred, depth):
    return (pred - depth).pow(2).mean().sqrt().item()
