"""A radiance field rendered with the transmittance taken as torch.cumprod(1 - alpha) along
the ray - the INCLUSIVE product - where NeRF's quadrature needs the exclusive one (1 for the
first sample, then the product of (1 - alpha_j) over the samples BEFORE sample i; TensorFlow
writes it ``tf.math.cumprod(..., exclusive=True)``, PyTorch has no such flag). Each sample's
weight is then alpha_i (1 - alpha_i) T_i: a sample can never take more than a quarter of
the light, so a surface that should stop a ray in one sample has to be smeared over many
at a lower density, and what is left shows the background through solid objects. The loss
still falls, the rendering just looks softer and worse on new views; nothing errors.

Reported: "Discussion: about cumprod operation in volumn rendering" -
https://github.com/volunt4s/TinyNeRF-pytorch/issues/1 (re-implementing tiny NeRF in
PyTorch, the reporter found that torch.cumprod, unlike the original's
``tf.math.cumprod(exclusive=True)``, does not start from 1, and that this "noticeably
decreased the model performance ... the visualized test image is significantly worse";
the fix is to shift the product by one sample, starting it from 1 - the repository's
line that sets the first element to 1). Here the flat scene of
benchmarks/real_bugs/_inr184.py (four solid discs of different greys seen from 32
directions by parallel rays, 40 samples a ray, composited over white), NeRF's positional
encoding (4 octaves) into a 4-layer ReLU MLP of width 64, softplus density, Adam 2e-3 on
batches of 128 rays; every fourth view held out. Fix: prepend a 1 and drop the last factor.

Measured (PSNR of the rendered views against the true ones, 500 steps): seed 0, held-out
views 14.6 dB for the bug against 19.8 dB for the fixed twin (training views 16.5 against
33.6); seeds shifted by 1000, 14.9 against 20.5 (16.8 against 29.4).
"""
import torch

from benchmarks.real_bugs._inr184 import (DELTA, Field, composite, psnr01, ray_points, scene,
                                          split, train_rays, weights_from_density)

TITLE = "Discussion: about cumprod operation in volumn rendering"
LINK = "https://github.com/volunt4s/TinyNeRF-pytorch/issues/1"
EXPECTED = ("TRANSMITTANCE_NOT_EXCLUSIVE",)
STEPS = 500
LR = 2e-3


def render(field, points, fixed):
    density, grey = field(points)
    if fixed:
        weights = weights_from_density(density)
    else:
        alpha = 1 - torch.exp(-density * DELTA)
        weights = alpha * torch.cumprod(1 - alpha + 1e-10, -1)   # BUG: includes sample i
    return composite(weights, grey)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    points = ray_points()
    density, grey = scene(points)
    views = composite(weights_from_density(density), grey)
    train, held_out = split()
    field = Field()
    optimizer = torch.optim.Adam(field.parameters(), lr=LR)
    mon = train_rays(field, optimizer, lambda f, rays: render(f, points[rays], fixed), views,
                     steps, train, **watch)
    with torch.no_grad():
        rendered = render(field, points, fixed)
    mon.train_psnr = psnr01(rendered[train], views[train])
    mon.held_out_psnr = psnr01(rendered[held_out], views[held_out])
    return mon
