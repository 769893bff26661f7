"""A pretrained (frozen) pixel encoder learned Sentinel-2 bands in its own order
(red, blue, green, nir, nir08, red-edge 1-3, swir16, swir22) and ships its mean/std in that
order; the user stacks the bands in the documented wavelength order B2..B12 and normalises
them with the shipped arrays, so each slot holds another band, normalised with another band's
statistics. A new classification head is trained on the frozen features.

Reported: "Incorrect Sentinel-2 band order documented in Tessera model" -
https://github.com/torchgeo/torchgeo/issues/3672 (the docstring said channels 0-9 are B2-B12,
but the model was trained on "red, blue, green, nir, nir08, rededge1, rededge2, rededge3,
swir16, swir22" and the mean/std arrays match that order, "so if a user follows the current
docstring and stacks bands as B2-B12, they end up normalizing each band with the wrong stats
*and* feeding the model channels in the wrong slots"; fixed in the docs, PR #3673). Here an
MLP encoder pretrained (in the script, before watching) on 4000 labelled synthetic pixels in
the model's order, then frozen; the linear head is trained on 300 labelled pixels with Adam.
Fix: stack the bands in the model's order.

Measured harm (held-out pixel accuracy, 2000 pixels): 0.88 vs 0.93; seeds + 1000: 0.86 vs 0.93.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._rs import BANDS, CLASSES, accuracy, pixel_mlp, pixels

TITLE = "Incorrect Sentinel-2 band order documented in Tessera model"
LINK = "https://github.com/torchgeo/torchgeo/issues/3672"
EXPECTED = ("INPUT_CHANNELS_REORDERED",)
STEPS = 200
BATCH = 32
MODEL_ORDER = ("B4", "B2", "B3", "B8", "B8A", "B5", "B6", "B7", "B11", "B12")
TO_MODEL = [BANDS.index(b) for b in MODEL_ORDER]


def pretrained_encoder():
    """The 'released' encoder: trained on pixels stacked in MODEL_ORDER; returns it with the
    mean/std it ships (in MODEL_ORDER)."""
    dn, y = pixels(4000)
    dn = dn[:, TO_MODEL]
    mean, std = dn.mean(0), dn.std(0)
    net = pixel_mlp()
    opt = torch.optim.Adam(net.parameters(), lr=3e-3)
    for _ in range(400):
        index = torch.randint(len(dn), (64,))
        loss = nn.functional.cross_entropy(net((dn[index] - mean) / std), y[index])
        opt.zero_grad()
        loss.backward()
        opt.step()
    encoder = net[:-1]
    encoder.requires_grad_(False)
    return encoder, mean, std


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    encoder, mean, std = pretrained_encoder()
    dn, y = pixels(300)                          # stacked B2..B12 (wavelength order)
    dn_test, y_test = pixels(2000)
    if fixed:
        dn, dn_test = dn[:, TO_MODEL], dn_test[:, TO_MODEL]
    # BUG when not fixed: B2..B12 stacked, normalised with the model-order arrays
    x, x_test = (dn - mean) / std, (dn_test - mean) / std
    model = nn.Sequential(encoder, nn.Linear(32, len(CLASSES)))
    optimizer = torch.optim.Adam(model[1].parameters(), lr=1e-2)
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
