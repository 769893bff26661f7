"""Pieces the beginner Dataset/DataLoader reports (batch 242) share (kept small: each case
writes its own Dataset class, where its bug lives): the 8x8 digits in an order drawn from
torch's generator, a small CNN classifier and a small fully convolutional segmenter, the
held-out metrics, and SCORES, where each case leaves the held-out metric of its last run
(so the harm each docstring states can be measured again: run the case, read
SCORES[<case name>])."""
import torch
from torch import nn

from benchmarks.real_bugs._common import classification

SCORES = {}
INK = 0.5           # a pixel above this is the digit's ink (the segmentation cases' masks)


def shuffled_digits(images=True):
    """(x, y): the digits in [0, 1], as (N, 1, 8, 8) images or (N, 64) rows, in an order
    drawn from torch's generator."""
    x, y = classification(images=images)
    order = torch.randperm(len(x))
    return x[order], y[order]


def cnn(classes=10, channels=1):
    return nn.Sequential(nn.Conv2d(channels, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(32 * 2 * 2, classes))


def segmenter(classes, channels=1, layers=2, width=16):
    """``layers`` 3x3 convolutions (each pixel sees a (2 * layers + 1)-wide square), then a
    1x1 convolution to ``classes`` logits per pixel."""
    body = []
    for i in range(layers):
        body += [nn.Conv2d(channels if i == 0 else width, width, 3, padding=1), nn.ReLU()]
    return nn.Sequential(*body, nn.Conv2d(width, classes, 1))


def predict(model, x, batch_size=256):
    """The model's outputs on ``x`` in eval mode, without gradients; the mode is restored."""
    was_training = model.training
    model.eval()
    with torch.no_grad():
        out = torch.cat([model(x[i:i + batch_size]) for i in range(0, len(x), batch_size)])
    model.train(was_training)
    return out


def accuracy(model, x, y):
    return (predict(model, x).argmax(1) == y).float().mean().item()


def foreground_iou(model, x, masks):
    """Intersection over union of the pixels predicted foreground (any class but 0, or a
    positive logit for a one-channel segmenter) with the true foreground, on ``x``; for
    several classes a foreground pixel counts only with its own class."""
    out = predict(model, x)
    if out.shape[1] == 1:
        predicted, true = out[:, 0] > 0, masks > 0.5
        hit = predicted & true
    else:
        predicted, true = out.argmax(1), masks
        hit = (predicted == true) & (true > 0)
        predicted, true = predicted > 0, true > 0
    return hit.sum().item() / max((predicted | true).sum().item(), 1)


def record(case, value):
    SCORES[case.rsplit(".", 1)[-1]] = value
    return value
