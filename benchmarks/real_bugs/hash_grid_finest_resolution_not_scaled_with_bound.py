"""A multiresolution grid encoding laid over a box [-bound, bound] larger than the unit box,
while its finest resolution stays what it would be for the unit box. The encoding maps the
box onto its [0, 1] grid, so with bound B the object occupies only 1/B of each axis, and
the finest level's cells are B times wider on it than intended: details smaller than that
are beyond what the grid can hold. Training runs and the loss falls, to a floor that is
a blurred version of the signal; nothing errors.

Reported: "Insufficient hash resolution harming performance" -
https://github.com/ashawkey/torch-ngp/issues/23 (torch-ngp fixed the hash encoding's
``desired_resolution`` at 2048 whatever the scene's ``bound``, where instant-ngp scales it
with ``aabb_scale``; the reporter found "a huge gap on performance" on a large scene, and
the maintainer agreed that ``desired_resolution`` "should be linearly scaled with
aabb_scale (bound in this implementation)"). Here the image-fitting version: the 64 x 64
digit mosaic of benchmarks/real_bugs/_coordinate_fields.py on [-1, 1]^2 (a random quarter
of the pixels held out), positions normalised for the encoding as torch-ngp does, (x +
bound) / (2 bound) with bound 2, a learnable dense grid encoding of 4 levels from
resolution 4 (benchmarks/real_bugs/_inr184.py, 4 features a level) into a 2-layer ReLU MLP
of width 64, full-batch Adam 1e-2. The finest resolution is 32, right for bound 1.
Fix: the finest resolution scaled by the bound (64), the levels spaced geometrically
between 4 and it.

Measured (PSNR on [-1, 1] grey levels, 300 steps): seed 0, held-out pixels 21.9 dB for the
bug against 27.4 dB for the fixed twin (training pixels 28.0 against 38.6); seeds shifted
by 1000, 23.6 against 27.7 (30.1 against 38.7).
"""
import torch

from benchmarks.real_bugs._coordinate_fields import digit_mosaic
from benchmarks.real_bugs._inr184 import GridField, fit_pixels

TITLE = "Insufficient hash resolution harming performance"
LINK = "https://github.com/ashawkey/torch-ngp/issues/23"
EXPECTED = ("ENCODING_RESOLUTION_NOT_SCALED_WITH_BOUND",)
STEPS = 300
LR = 1e-2
BOUND = 2.0
LEVELS, BASE, DESIRED = 4, 4, 32          # DESIRED: the finest resolution for bound 1


def resolutions(finest):
    """LEVELS resolutions from BASE to ``finest``, spaced geometrically (instant-ngp's
    per-level scale)."""
    scale = (finest / BASE) ** (1 / (LEVELS - 1))
    return tuple(int(round(BASE * scale ** level)) for level in range(LEVELS))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    grid, _ = digit_mosaic()
    unit = (grid + BOUND) / (2 * BOUND)            # the [-bound, bound] box onto [0, 1]
    if fixed:
        finest = DESIRED * BOUND                   # scaled with the bound, as instant-ngp
    else:
        finest = DESIRED                           # BUG: the unit box's finest resolution
    return fit_pixels(GridField(resolutions(finest)), unit, steps, LR, **watch)
