"""The training transform list - ``RandomResizedCrop``, ``RandomHorizontalFlip``,
ToTensor, Normalize - is also the one given to the validation data set, so every
validation pass scores the model on random crops of random size instead of the images
themselves. The validation accuracy the run reports (and picks its checkpoint by) sits
well below what the model does on the real held-out images.

Reported: "Data augmentation on the validation set" -
https://github.com/zoogzog/chexnet/issues/27 ("I noted that you have used random
transform for the validation dataset as well. I thought, we should stick to
deterministic transforms for the validation sets and test sets"). Here the 8x8 digits as
8-bit images, a batched RandomResizedCrop (area 0.3-1, aspect 3/4-4/3, resized back to
8x8) as the training augmentation (the flip left out: it is no label-preserving change
for digits), a small CNN, Adam lr 1e-3, batches of 32, and a validation pass every 50
steps on 400 held-out digits run through the same random crop. Fix: a deterministic
validation transform (the whole image, scaled and normalised only).

Measured (held-out accuracy at the last validation pass, bug vs fixed): seed 0: 0.692 vs
0.825; seeds + 1000: 0.752 vs 0.875.
"""
import math

import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._prep import accuracy, first_cnn, raw_digits

TITLE = "Data augmentation on the validation set"
LINK = "https://github.com/zoogzog/chexnet/issues/27"
EXPECTED = ("VALIDATION_INPUTS_AUGMENTED",)
STEPS = 200
EVAL_EVERY = 50
MEAN, STD = 0.3, 0.4            # the pixels' rough statistics in [0, 1]


def random_resized_crop(images, scale=(0.3, 1.0), ratio=(3 / 4, 4 / 3)):
    """torchvision's RandomResizedCrop, batched: a random box of ``scale`` of the area and
    aspect ``ratio`` per image, resampled (bilinear) to the full size."""
    n = len(images)
    area = torch.empty(n).uniform_(*scale)
    aspect = torch.exp(torch.empty(n).uniform_(math.log(ratio[0]), math.log(ratio[1])))
    width = torch.sqrt(area * aspect).clamp(max=1.0)
    height = torch.sqrt(area / aspect).clamp(max=1.0)
    cx = (torch.rand(n) * 2 - 1) * (1 - width)
    cy = (torch.rand(n) * 2 - 1) * (1 - height)
    theta = torch.zeros(n, 2, 3)
    theta[:, 0, 0], theta[:, 0, 2] = width, cx
    theta[:, 1, 1], theta[:, 1, 2] = height, cy
    grid = F.affine_grid(theta, list(images.shape), align_corners=False)
    return F.grid_sample(images, grid, align_corners=False)


def train_transform(images):
    return (random_resized_crop(images / 255.0) - MEAN) / STD


def val_transform(images):
    return (images / 255.0 - MEAN) / STD


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_test, y_test = raw_digits(images=True)
    # BUG when not fixed: the validation images go through the training transform
    validate_with = val_transform if fixed else train_transform
    model = first_cnn()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for step, (xb, yb) in enumerate(batches(x, y, steps, batch_size=32), 1):
            optimizer.zero_grad()
            loss = loss_fn(model(train_transform(xb)), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
            if step % EVAL_EVERY == 0:
                mon.held_out_accuracy = accuracy(model, validate_with(x_test), y_test)
    return mon
