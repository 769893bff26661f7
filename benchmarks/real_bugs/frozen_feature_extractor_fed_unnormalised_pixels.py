"""A VGG-style backbone used as a frozen feature extractor (its ``features`` frozen, only the
classifier trained) fed pixels scaled to [0, 1] but never normalised by the channel means and
standard deviations it was pretrained under. The frozen filters cannot adapt to the shifted
and shrunken inputs, there is no batch norm to re-centre them, and the classifier learns from
features far from the ones the backbone was trained to produce. The loss still falls.

Reported: "Normalization is Transfer Learning" -
https://github.com/udacity/deep-learning-v2-pytorch/issues/203 ("It looks like normalization
step is missing in Transfer Learning (Convolution Networks)": the solution notebook freezes
VGG16's features, replaces the last classifier layer and trains it on images only passed
through ToTensor; torchvision's pretrained models expect inputs normalised with the ImageNet
mean and std).

Here the batch-246 VGG-style model (``_beginner_transfer``: pretrained on digits 0-4 under
normalised inputs) gets its features frozen and a new ten-way last layer; the classifier is
trained with SGD (lr 0.003, momentum 0.9) on 500 other colour digits in [0, 1]. Fix: normalise
the inputs (train and held-out) with the pretraining channel statistics.

Measured (297 held-out digits, each run scored under its own preprocessing): seed 0,
held-out accuracy 0.70 for the bug against 0.78 for the fixed twin; seeds shifted by 1000,
0.63 against 0.75.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._beginner_transfer import (accuracy, batches, pretrained_vggish,
                                                     target_task, torch_preprocess)

TITLE = "Normalization is Transfer Learning"
LINK = "https://github.com/udacity/deep-learning-v2-pytorch/issues/203"
EXPECTED = ("INPUT_SCALE_UNLIKE_PRETRAINING",)
STEPS = 200
LR = 0.003


def run(fixed=False, steps=STEPS, **watch):
    model, stats = pretrained_vggish()
    (x, y), (x_held, y_held) = target_task()          # pixels in [0, 1]
    if fixed:
        x, x_held = torch_preprocess(x, stats), torch_preprocess(x_held, stats)
    # BUG (else): the [0, 1] pixels go in as they are (ToTensor only, no Normalize)
    torch.manual_seed(0)
    for param in model.features.parameters():
        param.requires_grad = False
    model.classifier[2] = nn.Linear(model.classifier[2].in_features, 10)
    model.train()
    optimizer = torch.optim.SGD(model.classifier.parameters(), lr=LR, momentum=0.9)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps, batch_size=32):
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, x_held, y_held)
    return mon


if __name__ == "__main__":
    for fixed in (False, True):
        print("fixed" if fixed else "bug", run(fixed).held_out_accuracy)
