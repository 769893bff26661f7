"""The training loss weights each grid row by the sine of its latitude instead of its cosine
(the cell-area formula for a colatitude, applied to latitudes): the weights peak at the poles,
whose cells cover almost no area, and vanish at the equator, so the model is fitted where
the area-weighted skill score barely looks.

Reported: "possible issue with _cell_area_from_latitude function?" -
https://github.com/google-research/weatherbenchX/issues/198 ("in my case it is creating very
large weights on poles. If I change them from sin to cos it is disappearing and weights seem
fine"). Here a periodic CNN learns one step of a toy atmosphere on a 12 x 24 grid whose
tropics drift east and extratropics west (a translation-equivariant net without latitude
input must compromise between the bands, so the weighting decides which it fits). Fix:
cos(latitude) weights, normalised to mean 1.

Measured (held-out cos-latitude-weighted RMSE, standardised units, 200 Adam steps): 0.583 vs
0.445; seeds + 1000: 0.581 vs 0.441.
"""
import math

import torch

import nndebug as nd
from benchmarks.real_bugs import _wx

TITLE = "possible issue with _cell_area_from_latitude function?"
LINK = "https://github.com/google-research/weatherbenchX/issues/198"
EXPECTED = ("CLASS_WEIGHTS_REVERSED",)
STEPS = 200
HELDOUT = []


def lat_weights(fixed):
    rad = _wx.LAT * math.pi / 180
    w = torch.cos(rad) if fixed else torch.sin(rad).abs()   # BUG when not fixed: sin
    return (w / w.mean()).view(1, 1, _wx.NLAT, 1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train_x = _wx.states(2048)
    train_y = _wx.advance(train_x)
    test_x = _wx.states(256)
    test_y = _wx.advance(test_x)
    model = _wx.cnn(2, 2)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    weights = lat_weights(fixed)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            pick = torch.randint(0, len(train_x), (32,))
            optimizer.zero_grad()
            loss = ((model(train_x[pick]) - train_y[pick]) ** 2 * weights).mean()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        HELDOUT.append(_wx.weighted_rmse(model(test_x), test_y))
    return mon
