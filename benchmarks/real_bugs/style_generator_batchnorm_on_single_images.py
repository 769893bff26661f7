"""An image-to-image generator with batch norm, trained on batches, then used to generate
images one at a time while still in training mode: each batch-norm layer normalises the
single image with that image's own mean and variance instead of the running statistics
learned in training, so a mostly dark (or mostly bright) image is stretched and the output
is distorted. (It also rewrites the running statistics with every generated image.)

Reported: "remove the noise from the generated image" -
https://github.com/yusuketomoto/chainer-fast-neuralstyle/issues/68 (a comment traces the
noise in very bright or dark areas to batch normalisation using "the current image's mean
and variance" at generation time, and proposes to generate with the statistics learned in
training, i.e. with ``test=True``). Here a small convolutional generator on the 8x8 digits
that sharpens a blurred digit, trained on batches of 64; after training, 256 held-out
digits are generated one by one under ``torch.no_grad()``. Fix: ``model.eval()`` before
generating (the running statistics), ``model.train()`` after.

Measured (300 steps, 256 held-out digits generated singly): the generation MSE against
the sharp digits is 0.0105 for the bug, 0.0078 for the fixed twin (seed 0).
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "remove the noise from the generated image"
LINK = "https://github.com/yusuketomoto/chainer-fast-neuralstyle/issues/68"
EXPECTED = ("VALIDATION_IN_TRAIN_MODE",)
STEPS = 300
GENERATED = 256


def generator():
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
        nn.Conv2d(16, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
        nn.Conv2d(16, 1, 3, padding=1))


def blur(sharp):
    return F.avg_pool2d(sharp, 3, stride=1, padding=1, count_include_pad=False)


def generate_one_by_one(model, images, fixed):
    """The generation pass: each image alone, as a style-transfer script renders files."""
    if fixed:
        model.eval()
    with torch.no_grad():
        outputs = torch.cat([model(blur(image[None])) for image in images])
    model.train()
    return outputs


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification(images=True)
    train, held_out = x[:-512], x[-GENERATED:]
    model = generator()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for sharp, _ in batches(train, y[:-512], steps):
            loss = F.mse_loss(model(blur(sharp)), sharp)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
        generated = generate_one_by_one(model, held_out, fixed)
    mon.generation_error = F.mse_loss(generated, held_out).item()
    return mon
