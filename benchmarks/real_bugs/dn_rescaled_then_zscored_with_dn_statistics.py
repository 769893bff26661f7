"""Sentinel-2 digital numbers are first converted to reflectance (divided by 10000) and then
z-scored with per-band mean/std that were computed on the digital numbers: every input becomes
about -mean/std (near -2) with variations of 1e-4, so the network sees near-constant inputs.

Reported: "fix: OlmoEarth swir_cirrus skip + normalize_inputs unit conversion bug" -
https://github.com/torchgeo/torchgeo-bench/pull/103 (normalize_inputs always applied
convert_unit, raw S2 DN / 10000 -> reflectance, and then z-scored with DN-scale band
statistics (~1000 / 500): "(0.0001 - 1000) / 500 ~ -2 - garbage features, ~random
accuracy"; it came in silently when a model's input unit was changed). Here per-pixel
land-cover classification (five classes) from ten synthetic Sentinel-2 bands with a small MLP
and Adam. Fix: z-score the digital numbers with the digital-number statistics (one unit
conversion, matching the statistics).

Measured harm (held-out pixel accuracy, 2000 pixels): 0.21 vs 0.89; seeds + 1000: 0.22 vs 0.91.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._rs import accuracy, pixel_mlp, pixels

TITLE = "fix: OlmoEarth swir_cirrus skip + normalize_inputs unit conversion bug"
LINK = "https://github.com/torchgeo/torchgeo-bench/pull/103"
EXPECTED = ("CONSTANT_INPUTS",)
STEPS = 200
BATCH = 64


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    dn, y = pixels(4000)
    dn_test, y_test = pixels(2000)
    mean, std = dn.mean(0), dn.std(0)            # the band statistics, in digital numbers

    def normalize(d):
        if not fixed:
            d = d / 10000                        # BUG: converted to reflectance first...
        return (d - mean) / std                  # ...then z-scored with DN-scale statistics

    x, x_test = normalize(dn), normalize(dn_test)
    model = pixel_mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            index = torch.randint(len(x), (BATCH,))
            loss = loss_fn(model(x[index]), y[index])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, x_test, y_test)
    return mon
