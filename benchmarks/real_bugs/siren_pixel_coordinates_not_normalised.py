"""A SIREN fed raw pixel indices, 0 to 63, as its coordinates instead of the [-1, 1] grid
its initialisation assumes. The first layer's frequencies (omega * w, up to +-15 per unit)
are set for inputs spanning 2 units; across 63 units each first-layer sine turns through
up to 150 periods. The network memorises the training pixels through that fast
oscillation, but between pixels it has no smooth interpolant: every held-out pixel is
noise. The training loss falls further than the healthy run's.

Reported: "SIREN not converge" - https://github.com/vsitzmann/siren/issues/19 (omega 30,
the training loss diverging on the reporter's problem; the reporter: "I have solved the
issue by normalizing the input to (-1,1) and reduce the learning rate", "normalizing to
(-1,1) is very important when using sine activation"). Here the notebook's loop: a 3 x 64
SIREN fitted full-batch with Adam 1e-4 to a 64 x 64 image (sixteen digits tiled and
upsampled), a random quarter of the pixels held out.
Fix: map the pixel indices to [-1, 1] (index / (side - 1) * 2 - 1) before the network.

Measured (300 steps, seed 0): PSNR on the training pixels 38.4 dB for the bug, 30.8 dB for
the twin; on the held-out pixels 8.2 dB against 25.3 dB.
"""
import torch

from benchmarks.real_bugs._coordinate_fields import SIDE, digit_mosaic, fit_image, siren

TITLE = "SIREN not converge"
LINK = "https://github.com/vsitzmann/siren/issues/19"
EXPECTED = ("UNNORMALIZED_INPUTS",)
STEPS = 300
LR = 1e-4


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    model = siren()
    grid, _ = digit_mosaic()
    pixel_indices = torch.round((grid + 1) / 2 * (SIDE - 1))     # 0 .. SIDE - 1
    coordinates = pixel_indices / (SIDE - 1) * 2 - 1 if fixed else pixel_indices   # BUG
    return fit_image(model, steps, LR, coordinates=coordinates, **watch)
