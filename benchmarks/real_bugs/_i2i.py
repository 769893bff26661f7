"""Shared pieces for the batch-214 image-to-image translation and style-transfer reports: the
8x8 digits as images in [-1, 1] (CycleGAN's and pix2pix's pixel range), two "colour" domains
made from them (two-channel images: A draws the digit in the first channel, "red", B in the
second, "green", the other channel dark; the true A -> B translation moves the ink from one
channel to the other, and a B image is already its own translation), a small instance-norm
translator with a tanh output, and a small PatchGAN-style discriminator (a 2x2 map of
real/fake logits)."""
import torch
from torch import nn

from benchmarks.real_bugs._common import classification

HELD_OUT = 297          # the last 297 digits are every case's held-out images


def digits_pm1():
    """All digits as (N, 1, 8, 8) images in [-1, 1]."""
    x, _ = classification(images=True)
    return x * 2 - 1


def to_a(digits):
    """Domain A: (N, 1, 8, 8) digits in [-1, 1] drawn in the first of two channels."""
    return torch.cat([digits, -torch.ones_like(digits)], 1)


def to_b(a):
    """Domain B, the true A -> B translation: the ink moved to the second channel."""
    return a.flip(1)


def unpaired_domains():
    """(train A, train B, held-out A): A and B from disjoint training rows (unpaired)."""
    x = to_a(digits_pm1())
    train = x[:-HELD_OUT]
    half = len(train) // 2
    return train[:half], to_b(train[half:]), x[-HELD_OUT:]


def translator(channels=2, track_running_stats=False, width=16):
    """conv - instance norm - ReLU (twice), conv, tanh: an image in [-1, 1] out."""
    def norm(c):
        return nn.InstanceNorm2d(c, affine=True, track_running_stats=track_running_stats)
    return nn.Sequential(nn.Conv2d(channels, width, 3, padding=1), norm(width), nn.ReLU(),
                         nn.Conv2d(width, width, 3, padding=1), norm(width), nn.ReLU(),
                         nn.Conv2d(width, channels, 3, padding=1), nn.Tanh())


def patch_discriminator(channels=2):
    """A PatchGAN-style critic: a (B, 1, 2, 2) map of logits for images of 8x8."""
    return nn.Sequential(nn.Conv2d(channels, 16, 4, stride=2, padding=1), nn.LeakyReLU(0.2),
                         nn.Conv2d(16, 32, 4, stride=2, padding=1), nn.LeakyReLU(0.2),
                         nn.Conv2d(32, 1, 3, padding=1))
