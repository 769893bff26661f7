"""A digit classifier with batch norm after its convolutions, trained on batches of 64,
then used to classify test images one at a time without switching to eval mode: each
single image is normalised with its own per-channel statistics (over a handful of spatial
positions) instead of the running averages, every feature map is re-centred on that one
image, and the scores come out nearly the same whatever the digit.

Reported: "Getting wrong results when testing cnn_mnist" -
https://github.com/vlfeat/matconvnet/issues/193 (after training cnn_mnist with 'useBnorm',
scoring single images from the training set: "I get the exact same (wrong) scores for
every tested image"; the answer: "the problem is in the bnorm layers ... they do not work
properly without at least a mini batch" - the network was run in its training mode).
Here the 8x8 digits, a two-convolution net with BatchNorm2d after each (8x8 then 4x4
maps), SGD lr 0.05 momentum 0.9, batches of 64, then 400 held-out digits scored one image
per forward pass. Fix: ``model.eval()`` before the per-image predictions (the running
statistics normalise them).

Measured (held-out accuracy of the one-image predictions, bug vs fixed): seed 0: 0.908 vs 0.973;
seeds + 1000: 0.952 vs 0.98.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._bnd import accuracy, bn_cnn, split_digits
from benchmarks.real_bugs._common import batches

TITLE = "Getting wrong results when testing cnn_mnist"
LINK = "https://github.com/vlfeat/matconvnet/issues/193"
EXPECTED = ("VALIDATION_IN_TRAIN_MODE", "BATCHNORM_TINY_BATCH")
STEPS = 150


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_test, y_test = split_digits(images=True)
    model = bn_cnn()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps, batch_size=64):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
        if fixed:
            model.eval()                     # BUG when not fixed: batch norm in train mode
        with torch.no_grad():
            scores = torch.cat([model(image[None]) for image in x_test])
        mon.held_out_accuracy = accuracy(scores, y_test)
    return mon
