"""A keypoint detector's Gaussian target maps are built on a coordinate grid whose two axes
are swapped: torch.meshgrid's default "ij" indexing returns the row index first, and the
code names it xx. Each target peak lands at (row = x, column = y), the keypoint's mirror
image about the diagonal, while the decoder reads a peak's column as x and its row as y.
A fully convolutional network answers where it sees things; asked to light up a pixel
across the diagonal from the joint, it can only reach the transposed position where
its receptive field covers both, and its decoded keypoints are wherever the transposed
targets put them. The loss falls and settles; nothing errors.

Reported: "xx,yy should be swapped in meshgrid +explicitly add indexing to avoid
deprecation warning" - https://github.com/tlpss/keypoint-detection/issues/7 (the heatmap
generator's ``meshgrid`` call in keypoint_detection/utils/heatmap.py returned the grids in
the other order than the names said; fixed in #8 with explicit ``indexing="ij"`` and
``v_grid, u_grid`` named by axis). Here: 20x20 synthetic upper bodies, a small dilated
fully convolutional heatmap network, MSE against the Gaussian maps, argmax decoding.
Fix: x varies along the columns, y along the rows (``indexing="xy"``, or unpack "ij" as
rows, columns).

Measured (300 Adam steps, batch 32, 2,000 training figures, 500 held out, seed 0): held-out
PCK (argmax within 2 pixels of the keypoint) 0.06 for the bug, 1.00 for the fixed twin;
mean error 5.71 pixels against 0.41.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._keypoints import (SIZE, HeatmapNet, argmax_points, figures,
                                             index_batches)

TITLE = ("xx,yy should be swapped in meshgrid +explicitly add indexing to avoid deprecation "
         "warning")
LINK = "https://github.com/tlpss/keypoint-detection/issues/7"
EXPECTED = ("HEATMAP_TARGET_AXES_SWAPPED",)
STEPS = 300
BATCH = 32
TRAIN, HELD_OUT = 2000, 500
LR = 3e-3
SIGMA = 1.0
PCK_PIXELS = 2.0


def target_maps(points, fixed):
    """(N, K, 2) pixel (x, y) keypoints -> (N, K, SIZE, SIZE) Gaussian maps."""
    axis = torch.arange(SIZE, dtype=torch.float32)
    if fixed:
        xx, yy = torch.meshgrid(axis, axis, indexing="xy")    # xx varies along columns
    else:
        xx, yy = torch.meshgrid(axis, axis, indexing="ij")    # BUG: xx varies along rows
    dx = xx - points[..., 0, None, None]
    dy = yy - points[..., 1, None, None]
    return torch.exp(-(dx ** 2 + dy ** 2) / (2 * SIGMA ** 2))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    images, points = figures(TRAIN + HELD_OUT, seed=0)
    model = HeatmapNet(points.shape[1])
    optimizer = torch.optim.Adam(model.parameters(), lr=LR)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(TRAIN, steps, BATCH, seed=0):
            optimizer.zero_grad()
            loss = torch.nn.functional.mse_loss(model(images[index]),
                                                target_maps(points[index], fixed))
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        found = argmax_points(model(images[TRAIN:]))
    distance = (found - points[TRAIN:]).norm(dim=-1)
    mon.held_out_pck = (distance <= PCK_PIXELS).float().mean().item()
    mon.held_out_error = distance.mean().item()
    return mon
