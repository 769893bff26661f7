"""Colourised 8x8 digits in CIE Lab for the colorization cases of batch 349: each digit class
painted in its own colour (greens and blues among them, so a and b take both signs), the
stroke's brightness the digit's ink; a model reads the L channel and predicts a and b."""
import torch

from benchmarks.real_bugs._common import classification

HELD_OUT = 297
# one colour per digit class (sRGB in [0, 1]); several with negative a (greens) or b (blues)
PALETTE = torch.tensor([
    [1.0, 0.1, 0.1], [0.1, 0.8, 0.1], [0.1, 0.3, 1.0], [1.0, 0.9, 0.1], [0.1, 0.8, 0.8],
    [0.9, 0.1, 0.9], [1.0, 0.5, 0.1], [0.1, 0.5, 0.4], [0.5, 0.2, 1.0], [0.5, 1.0, 0.2]])
WHITE = torch.tensor([0.95047, 1.0, 1.08883])
RGB_TO_XYZ = torch.tensor([[0.412453, 0.357580, 0.180423],
                           [0.212671, 0.715160, 0.072169],
                           [0.019334, 0.119193, 0.950227]])


def rgb_to_lab(rgb):
    """(N, 3, H, W) sRGB in [0, 1] -> (N, 3, H, W) Lab: L in 0..100, a and b signed."""
    linear = torch.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    xyz = torch.einsum("ij,njhw->nihw", RGB_TO_XYZ, linear) / WHITE.view(1, 3, 1, 1)
    f = torch.where(xyz > 0.008856, xyz.clamp_min(1e-12) ** (1 / 3), 7.787 * xyz + 16 / 116)
    fx, fy, fz = f[:, 0], f[:, 1], f[:, 2]
    return torch.stack([116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)], 1)


def lab_to_rgb(lab):
    """The exact inverse of ``rgb_to_lab`` (no clipping): (N, 3, H, W) Lab -> sRGB."""
    fy = (lab[:, 0] + 16) / 116
    f = torch.stack([fy + lab[:, 1] / 500, fy, fy - lab[:, 2] / 200], 1)
    xyz = torch.where(f > 0.008856 ** (1 / 3), f ** 3, (f - 16 / 116) / 7.787)
    xyz = xyz * WHITE.view(1, 3, 1, 1)
    linear = torch.einsum("ij,njhw->nihw", torch.linalg.inv(RGB_TO_XYZ), xyz)
    return torch.where(linear <= 0.0031308, 12.92 * linear,
                       1.055 * linear.clamp_min(1e-12) ** (1 / 2.4) - 0.055)


def colour_rgb():
    """The digits painted in their class colour on black: (N, 3, 8, 8) sRGB in [0, 1]."""
    x, y = classification(images=True)                         # (N, 1, 8, 8) in [0, 1]
    return x * PALETTE[y].view(-1, 3, 1, 1), y


def colour_digits():
    """The digits painted in their class colour on black, as Lab: L (N, 64) and ab (N, 128)
    in Lab units, plus the labels; the last HELD_OUT rows are the held-out split."""
    rgb, y = colour_rgb()
    lab = rgb_to_lab(rgb)
    return lab[:, 0].reshape(len(y), -1), lab[:, 1:].reshape(len(y), -1), y


def split(*tensors):
    return ([t[:-HELD_OUT] for t in tensors], [t[-HELD_OUT:] for t in tensors])


def ab_error(predicted_ab, true_ab):
    """Mean absolute error of the predicted a and b, in Lab units."""
    return round(float((predicted_ab - true_ab).abs().mean()), 2)
