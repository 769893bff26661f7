"""An init function meant to set each batch norm's bias to 0 sets its weight to 0 instead
(``constant_(module.weight, 0)`` on the line after ``constant_(module.weight, 1)``): every
batch norm multiplies its normalised input by zero. Each block's output is its bias (0), the
ReLU after it passes nothing and no gradient, and the convolutions and norms never learn;
only the classifier's bias does (the class prior).

Reported: "copy paste typo in initializing batch norm?" -
https://github.com/kazuto1011/deeplab-pytorch/issues/44 (in ``init_weights``' BatchNorm2d
branch, "should this be `nn.init.constant_(m.bias, 0)`?"; the maintainer: "Yes definitely!
Thank you for reporting."). Here that init function is applied, with ``model.apply``, to a
small convolutional classifier of the 8x8 digits. Fix: ``nn.init.constant_(module.bias, 0)``.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "copy paste typo in initializing batch norm?"
LINK = "https://github.com/kazuto1011/deeplab-pytorch/issues/44"
EXPECTED = ("NO_GRADIENT", "PARAMS_NOT_UPDATING", "DEAD_RELU", "COLLAPSED_ACTIVATIONS")
STEPS = 150


def init_weights(module, fixed):
    if isinstance(module, nn.Conv2d):
        nn.init.kaiming_normal_(module.weight, mode="fan_out", nonlinearity="relu")
        if module.bias is not None:
            nn.init.constant_(module.bias, 0)
    elif isinstance(module, nn.Linear):
        nn.init.kaiming_normal_(module.weight, mode="fan_out", nonlinearity="relu")
        if module.bias is not None:
            nn.init.constant_(module.bias, 0)
    elif isinstance(module, nn.BatchNorm2d):
        nn.init.constant_(module.weight, 1)
        if module.bias is not None:
            if fixed:
                nn.init.constant_(module.bias, 0)
            else:
                nn.init.constant_(module.weight, 0)       # BUG: the weight again, not the bias


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification(images=True)
    model = nn.Sequential(
        nn.Conv2d(1, 8, kernel_size=3, padding=1, bias=False), nn.BatchNorm2d(8), nn.ReLU(),
        nn.Conv2d(8, 16, kernel_size=3, padding=1, bias=False), nn.BatchNorm2d(16), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 10))
    model.apply(lambda module: init_weights(module, fixed))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    return train_watched(model, optimizer, nn.CrossEntropyLoss(), batches(x, y, steps),
                         **watch)
