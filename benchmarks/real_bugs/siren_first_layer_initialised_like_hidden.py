"""A SIREN whose first sine layer draws its weights with the hidden layers' bound,
uniform in +-sqrt(6 / fan_in) / omega, instead of the first layer's +-1 / fan_in. With two
input coordinates and omega = 30 the first layer's frequencies, omega * w, lie within
+-1.7 instead of +-15: the network starts as a smooth function of the coordinates, its
sines see less than one period across the image, and fitting the strokes of the digits
needs the first layer's weights to grow tenfold under Adam's small steps. It converges
much more slowly and less accurately; nothing crashes and the loss falls.

Reported: "Initial layer initialization" -
https://github.com/lucidrains/siren-pytorch/issues/1 (the reporter's SirenNet "converges
much slower and less accurate" than the authors' Colab; there "the initial layer uses a
different weight initialization, but the same w_0"; the author acknowledged he had
misunderstood the initialisation and released a fixed version, after which the net
"converges much faster"). Here the SIREN notebook's loop: a 3 x 64 SIREN fitted full-batch
with Adam 1e-4 to a 64 x 64 image (sixteen digits tiled and upsampled), a random quarter of
the pixels held out.
Fix: the first layer's weights uniform in +-1 / fan_in (``is_first``), the hidden layers'
in +-sqrt(6 / fan_in) / omega.

Measured (300 steps, seed 0): PSNR on the training pixels 17.1 dB for the bug, 30.8 dB for
the twin; on the held-out pixels 16.2 dB against 25.3 dB.
"""
import math

import torch

from benchmarks.real_bugs._coordinate_fields import fit_image, siren

TITLE = "Initial layer initialization"
LINK = "https://github.com/lucidrains/siren-pytorch/issues/1"
EXPECTED = ("INIT_SCALE_TOO_SMALL",)
STEPS = 300
LR = 1e-4
OMEGA = 30.0


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    model = siren(omega=OMEGA)
    if not fixed:
        first = model[0].linear
        bound = math.sqrt(6 / first.in_features) / OMEGA    # BUG: the hidden layers' rule
        with torch.no_grad():
            first.weight.uniform_(-bound, bound)
    return fit_image(model, steps, LR, **watch)
