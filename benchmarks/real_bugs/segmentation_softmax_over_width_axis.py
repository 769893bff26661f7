"""A 3-class segmentation U-Net whose output softmax runs over the last axis of the
channels-first (N, C, H, W) map - the image's width - instead of over the classes
(dim=1), the default axis of a channels-last framework. Each class channel becomes a
distribution over the columns of its row; the log of it goes into NLLLoss. The loss falls
(a target class can still be pushed up along a row) but the "probabilities" of the classes
at one pixel no longer compete, and the argmax over classes is close to arbitrary.

Reported: "Using Categorical_crossentropy, Loss Unable to Converge" -
https://github.com/ellisdg/3DUnetCNN/issues/94 (with a softmax output activation and
categorical cross-entropy the 3D U-Net did not converge; the maintainer had never got the
softmax to work; the answer: on channels-first data the softmax must be told axis=1,
Lambda(lambda x: softmax(x, axis=1))). Here a first-tutorial U-Net
(benchmarks/real_bugs/_beginner_unet.py) on 16x16 noisy scenes of filled (class 1) and
outlined (class 2) rectangles, Adam, NLLLoss on log(softmax + 1e-7). Fix: softmax over
dim=1.

Measured (300 steps, batch 16, 256 held-out scenes; mean IoU of classes 1 and 2 of the
argmax over classes): seed 0, 0.277 for the bug against 0.696 for the fixed twin; seeds
shifted by 1000, 0.262 against 0.706.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._beginner_unet import TutorialUNet, batches, mean_iou, scenes

TITLE = "Using Categorical_crossentropy, Loss Unable to Converge"
LINK = "https://github.com/ellisdg/3DUnetCNN/issues/94"
EXPECTED = ("CLASS_AXIS_SCRAMBLED",)
STEPS = 300


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    images, labels = scenes(1024, seed=0)
    held_images, held_labels = scenes(256, seed=1)
    model = TutorialUNet(out=3)
    criterion = nn.NLLLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    # BUG (fixed=False): the softmax runs over the last axis (the image's width) of the
    # channels-first (N, C, H, W) map, as a channels-last default would, not over classes
    axis = 1 if fixed else -1
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(images, labels, steps):
            probabilities = F.softmax(model(xb), dim=axis)
            loss = criterion(torch.log(probabilities + 1e-7), yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        probabilities = F.softmax(model(held_images), dim=axis)
        mon.held_out_mean_iou = mean_iou(probabilities.argmax(1), held_labels, 3)
    return mon
