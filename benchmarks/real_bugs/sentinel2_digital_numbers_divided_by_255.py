"""16-bit Sentinel-2 digital numbers (reflectance x 10000, up to about 5500 here) are
"normalised" by 255 as if they were 8-bit RGB: the inputs run from 0 to about 22 (mean
about 6) instead of 0-1, and SGD with a rate fit for unit-scale inputs is thrown around.

Reported: "Normalization of Sentinel data for ML downstream" -
https://forum.sentinel-hub.com/t/normalization-of-sentinel-data-for-ml-downstream/5459
(a (13, 40, 40) Sentinel-2 array for classification: "Some of the bands are in RGB (B2, B3,
B4) which can be normalized by the typically used 255.0 (uint8)" - but "the other bands go
up to 10,000"; the answer: all bands are digital numbers up to 10,000, "usually divided by
10,000 to roughly fit in the [0.0, 1.0] interval"). Here per-pixel land-cover classification
from ten synthetic Sentinel-2 bands with a small MLP and SGD + momentum. Fix: divide by
10000.

Measured harm (held-out pixel accuracy, 2000 pixels): 0.40 vs 0.89; seeds + 1000: 0.61 vs 0.87.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._rs import accuracy, pixel_mlp, pixels

TITLE = "Normalization of Sentinel data for ML downstream"
LINK = "https://forum.sentinel-hub.com/t/normalization-of-sentinel-data-for-ml-downstream/5459"
EXPECTED = ("UNNORMALIZED_INPUTS",)
STEPS = 300
BATCH = 64


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    dn, y = pixels(4000)
    dn_test, y_test = pixels(2000)
    scale = 10000.0 if fixed else 255.0          # BUG: 8-bit scaling of 16-bit data
    x, x_test = dn / scale, dn_test / scale
    model = pixel_mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
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
