"""A radiance field rendered over a white background (what is left of a ray after the scene
shows white) and trained against views whose transparent pixels are black: the images
come with an alpha channel, but their colour is used as it is, never blended onto the
white the renderer assumes. To match a black pixel where the scene is empty, the field has
to invent dark matter: it fills empty space with opaque black density (floaters, a dark
shell around the scene) that occludes the real objects from other directions. The loss
falls; the geometry, and every rendering over the intended background, is wrong.

Reported: "On the Blender dataset, when using a white background, it fails to work
properly." - https://github.com/hanl2010/Binocular3DGS/issues/6 (with ``white_background``
set, the renders were composited over white while the ground truth used in training "still
used images with a black background", although the loader had read the alpha mask; the fix
blends the ground-truth image onto the background colour with its alpha,
image * alpha + background * (1 - alpha), before it is used). Here the flat scene of
benchmarks/real_bugs/_inr184.py (four solid discs of different greys seen from 32
directions by parallel rays, 40 samples a ray): each view's colour with the object only
(background 0) and its alpha (the rendered opacity), a NeRF field (positional encoding,
4-layer ReLU MLP of width 64, softplus density) composited over white, Adam 2e-3 on batches
of 128 rays; every fourth view held out. Fix: targets = colour + (1 - alpha), the views over
white.

Measured (500 steps; PSNR of the renders over white against the true views over white, and
the mean opacity the field gives the rays that miss every object, 0 in the scene): seed 0,
held-out views 4.0 dB for the bug against 19.8 dB for the fixed twin, empty-ray opacity
0.93 against 0.02; seeds shifted by 1000, 3.8 against 20.5, opacity 0.95 against 0.03.
"""
import torch

from benchmarks.real_bugs._inr184 import (Field, composite, psnr01, ray_points, scene, split,
                                          train_rays, weights_from_density)

TITLE = ("On the Blender dataset, when using a white background, it fails to work "
         "properly.")
LINK = "https://github.com/hanl2010/Binocular3DGS/issues/6"
EXPECTED = ("TARGET_BACKGROUND_MISMATCH",)
STEPS = 500
LR = 2e-3


def render(field, points):
    density, grey = field(points)
    weights = weights_from_density(density)
    return composite(weights, grey, background=1.0), weights.sum(-1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    points = ray_points()
    density, grey = scene(points)
    weights = weights_from_density(density)
    colour, alpha = (weights * grey).sum(-1), weights.sum(-1)    # an RGBA view: 0 outside
    if fixed:
        targets = colour + (1 - alpha) * 1.0         # blended onto the white background
    else:
        targets = colour                             # BUG: black where the view is empty
    over_white = colour + (1 - alpha)
    train, held_out = split()
    field = Field()
    optimizer = torch.optim.Adam(field.parameters(), lr=LR)
    mon = train_rays(field, optimizer, lambda f, rays: render(f, points[rays])[0], targets,
                     steps, train, **watch)
    with torch.no_grad():
        rendered, opacity = render(field, points)
    empty = alpha < 1e-3
    mon.train_psnr = psnr01(rendered[train], over_white[train])
    mon.held_out_psnr = psnr01(rendered[held_out], over_white[held_out])
    mon.empty_ray_opacity = round(float(opacity[empty].mean()), 3)
    return mon
