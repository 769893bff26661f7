"""A multiresolution grid encoding (Instant-NGP's, here dense and in 2-D) fed coordinates in
[-1, 1] when it reads its input as a position in the unit square [0, 1] and clamps whatever
lies outside onto the border. Every point with a negative coordinate lands on the square's
edge: three quarters of the domain (x < 0 or y < 0) share the features of a line, and only
the quarter with both coordinates positive is encoded at all. The network still fits that
quarter well, the loss falls, and the rest of the signal comes out as streaks.

Reported: "A quick question on input range of tcnn.Encoding" -
https://github.com/alvaro-budria/NeuSacc/issues/4 (the SDF network, following NeuS's
[-1, 1]^3 bounding volume, passed its points straight to the tiny-cuda-nn grid encoding;
the maintainer confirmed that the encoding "expects inputs to be in the [0, 1] range, and
in fact performs a clamping to that range", so the points' negative half was ignored and
the object reconstructed from the positive half only, and fixed it by rescaling the points
to [0, 1] before the encoding). Here the image-fitting version: the 64 x 64 digit mosaic of
benchmarks/real_bugs/_coordinate_fields.py (a random quarter of the pixels held out), a
learnable dense grid encoding of 4 levels (benchmarks/real_bugs/_inr184.py: resolutions 4
to 32, 4 features a level initialised in +-0.1, bilinear interpolation, inputs clamped to
[0, 1] as the report says tcnn does) into a 2-layer ReLU MLP of width 64, full-batch Adam
1e-2. Fix: map the [-1, 1] coordinates to [0, 1], (x + 1) / 2, before the encoding.

Measured (PSNR on [-1, 1] grey levels, 300 steps): seed 0, held-out pixels 12.1 dB for the
bug against 27.3 dB for the fixed twin (training pixels 12.2 against 37.7); seeds shifted
by 1000, 12.1 against 27.9 (12.2 against 39.1).
"""
import torch

from benchmarks.real_bugs._coordinate_fields import digit_mosaic
from benchmarks.real_bugs._inr184 import GridField, fit_pixels

TITLE = "A quick question on input range of tcnn.Encoding"
LINK = "https://github.com/alvaro-budria/NeuSacc/issues/4"
EXPECTED = ("INPUT_OUTSIDE_ENCODING_RANGE",)
STEPS = 300
LR = 1e-2
RESOLUTIONS = (4, 8, 16, 32)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    grid, _ = digit_mosaic()                     # pixel coordinates in [-1, 1]
    inputs = (grid + 1) / 2 if fixed else grid   # BUG (unfixed): [-1, 1] into a [0, 1] grid
    return fit_pixels(GridField(RESOLUTIONS), inputs, steps, LR, **watch)
