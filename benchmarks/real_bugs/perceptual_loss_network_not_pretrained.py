"""A restoration network trained with an L1 loss plus a perceptual loss whose feature
network was built without its pretrained weights (torchvision's ``vgg16()`` defaults to
``pretrained=False``): the "perceptual" distance is measured in the features of a
randomly initialised network, which encode nothing about what images look like. The term
is differentiable and falls like any other, so the run looks healthy, but the network is
steered towards matching random projections instead of the features the loss was meant
to compare, and its restorations score worse in the real feature space.

Reported: "bug: VGG16 without pretrained=True option?" -
https://github.com/avinashpaliwal/Super-SloMo/issues/54 (the frame-interpolation training
script built its perceptual-loss network as ``torchvision.models.vgg16()``: "By default,
`pretrained=False`. Thus, perhaps perceptual loss does not work."; two users confirmed it
and the author thanked them for the report; the fix is ``vgg16(pretrained=True)``). Here a
small convolutional autoencoder (benchmarks/real_bugs/_res177.py) restoring 8x8 digits whose
bottom-right quarter is blanked out, L1 plus a perceptual term on the first two conv
layers of the feature network (a small digit classifier: trained for 300 steps and frozen
is the "pretrained" network, left at its initialisation is the bug), Adam. Fix: the
pretrained feature network.

Measured (500 steps, batch 64, 512 held-out digits; the perceptual distance in the
PRETRAINED network's features, and that network's accuracy on the restored digits): seed
0, distance 0.126 and accuracy 0.834 for the bug against 0.103 and 0.852 for the fixed
twin; seeds shifted by 1000, 0.130 and 0.861 against 0.104 and 0.871.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import classification, index_batches
from benchmarks.real_bugs._res177 import HELD_OUT, ConvAutoencoder, damaged, feature_network

TITLE = "bug: VGG16 without pretrained=True option?"
LINK = "https://github.com/avinashpaliwal/Super-SloMo/issues/54"
EXPECTED = ("PRETRAINED_WEIGHTS_NOT_LOADED",)
STEPS = 500
PERCEPTUAL_WEIGHT = 1.0


def features(net, x):
    """The outputs of the feature network's first two conv layers (after their ReLUs)."""
    first = net[1](net[0](x))
    return [first, net[3](net[2](first))]


def perceptual(net, fake, real):
    return sum(F.mse_loss(f, r) for f, r in zip(features(net, fake), features(net, real)))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification(images=True)
    train, held_out, held_out_y = x[:-HELD_OUT], x[-HELD_OUT:], y[-HELD_OUT:]
    pretrained = feature_network(train, y[:-HELD_OUT])
    torch.manual_seed(1)                       # the same draw for a fresh network either way
    untrained = feature_network(train, y[:-HELD_OUT], steps=0)
    vgg = pretrained if fixed else untrained   # BUG: vgg16() without pretrained=True
    model = ConvAutoencoder()
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(train), steps, 64):
            real = train[index]
            fake = model(damaged(real))
            loss = F.l1_loss(fake, real) + PERCEPTUAL_WEIGHT * perceptual(vgg, fake, real)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        restored = model(damaged(held_out))
        mon.perceptual_distance = perceptual(pretrained, restored, held_out).item()
        mon.restored_accuracy = (pretrained(restored).argmax(1) == held_out_y).float().mean().item()
    return mon
