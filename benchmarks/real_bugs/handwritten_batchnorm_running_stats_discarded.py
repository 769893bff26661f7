"""A hand-written batch norm whose running statistics are never stored: the update is
written ``self.running_mean.mul(1 - m).add(m * mean)``, out-of-place ops whose result is
thrown away, so the buffers keep their start (0 and 1) for the whole run. Training
normalises each batch with its own statistics and looks fine; eval mode normalises with
mean 0 and variance 1, that is not at all, and the evaluation falls apart.

Reported: "TensorBoard with good prediction, however, evaluation result is bad" -
https://github.com/hiwonjoon/tf-frrn/issues/2 (the author: "I missed the part where running
statistics (mean&stds) for batchnorm is updated. Since batchnorm layer needs accumulated
mean & std values on evaluation step ... it explains why you get a drastically worse
performance on your evaluation time."). Here a small conv net on the 8x8 digits with such
a layer after each convolution. Fix: update the buffers in place (``mul_``/``add_``) or use
``nn.BatchNorm2d``.

Measured (200 steps, 297 held-out digits, eval mode): the bug's test accuracy 0.63, the
fixed twin's 0.92.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "TensorBoard with good prediction, however, evaluation result is bad"
LINK = "https://github.com/hiwonjoon/tf-frrn/issues/2"
EXPECTED = ("BATCHNORM_STATISTICS_FROZEN",)
STEPS = 200
HELD_OUT = 297


class BatchNorm2d(nn.Module):
    """Batch normalisation over (batch, height, width) per channel, written out."""

    def __init__(self, channels, momentum=0.1, eps=1e-5, in_place=False):
        super().__init__()
        self.momentum, self.eps, self.in_place = momentum, eps, in_place
        self.weight = nn.Parameter(torch.ones(channels))
        self.bias = nn.Parameter(torch.zeros(channels))
        self.register_buffer("running_mean", torch.zeros(channels))
        self.register_buffer("running_var", torch.ones(channels))

    def forward(self, x):
        if self.training:
            mean = x.mean(dim=(0, 2, 3))
            var = x.var(dim=(0, 2, 3), unbiased=False)
            with torch.no_grad():
                m = self.momentum
                if self.in_place:
                    self.running_mean.mul_(1 - m).add_(m * mean)
                    self.running_var.mul_(1 - m).add_(m * var)
                else:                                          # BUG: results discarded
                    self.running_mean.mul(1 - m).add(m * mean)
                    self.running_var.mul(1 - m).add(m * var)
        else:
            mean, var = self.running_mean, self.running_var
        shape = (1, -1, 1, 1)
        normalised = (x - mean.view(shape)) / torch.sqrt(var.view(shape) + self.eps)
        return normalised * self.weight.view(shape) + self.bias.view(shape)


def build(fixed):
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1, bias=False), BatchNorm2d(16, in_place=fixed),
        nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1, bias=False), BatchNorm2d(32, in_place=fixed),
        nn.ReLU(), nn.Flatten(), nn.Linear(32 * 4 * 4, 10))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification(images=True)
    model = build(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    mon = train_watched(model, optimizer, nn.CrossEntropyLoss(),
                        batches(x[:-HELD_OUT], y[:-HELD_OUT], steps), **watch)
    model.eval()
    with torch.no_grad():
        predicted = model(x[-HELD_OUT:]).argmax(1)
    mon.test_accuracy = round(float((predicted == y[-HELD_OUT:]).float().mean()), 3)
    return mon
