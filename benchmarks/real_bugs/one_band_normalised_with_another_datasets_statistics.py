"""Per-band normalisation statistics assembled by hand, with one band's mean/std copied from
another dataset's dictionary (a different product and processing level): that band's
normalised values sit around +29 with a spread of 3.5 instead of 0 +/- 1, while the other
bands are standardised.

Reported: "Compute offline norm stats and add data distributions" -
https://github.com/allenai/olmoearth_pretrain/pull/128 ("our original normalization values
for B09 band in Sentinel2 L2A is incorrect (I grab it from EuroSat normalization dict), B09
band values after normalization are much larger than 1"; the two W&B runs compare training
with the incorrect and the updated values). Here per-pixel land-cover classification from
ten synthetic Sentinel-2 bands plus the water-vapour band B09 (bright, uninformative), a
small MLP trained with SGD + momentum. Fix: B09's statistics computed on the data like the
other bands'.

Measured harm (held-out pixel accuracy, 2000 pixels): 0.20 vs 0.90; seeds + 1000: 0.39 vs 0.92.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._rs import BANDS, accuracy, pixel_mlp, pixels

TITLE = "Compute offline norm stats and add data distributions"
LINK = "https://github.com/allenai/olmoearth_pretrain/pull/128"
EXPECTED = ("INPUT_CHANNELS_ON_DIFFERENT_SCALES",)
STEPS = 200
BATCH = 64
B09_COPIED = (300.0, 50.0)           # mean, std of another dataset's B09 (digital numbers)


def with_b09(n):
    dn, y = pixels(n)
    b09 = (1500 + 500 * torch.rand(n, 1) + 100 * torch.randn(n, 1)).round()
    return torch.cat([dn, b09], 1), y


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    dn, y = with_b09(4000)
    dn_test, y_test = with_b09(2000)
    mean, std = dn.mean(0), dn.std(0)
    if not fixed:
        mean[-1], std[-1] = B09_COPIED           # BUG: B09's entry from another dataset
    x, x_test = (dn - mean) / std, (dn_test - mean) / std
    model = pixel_mlp(bands=len(BANDS) + 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
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
