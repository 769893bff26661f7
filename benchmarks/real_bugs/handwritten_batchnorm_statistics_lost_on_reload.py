"""A from-scratch batch norm (the textbook's) that keeps its moving mean and variance as
plain tensor attributes instead of registered buffers. They are updated while training and
used in eval mode, but ``state_dict()`` does not contain them: a checkpoint saved from the
trained model and loaded into a fresh one restores the weights, gammas and betas, and leaves
the moving statistics at their start (0 and 1). The restored model normalises its test
inputs with the wrong statistics and its accuracy collapses.

Reported: "Fix(chapter_convolutional-modern): 修复BatchNorm实现中均值和方差无法通过
state_dict… 保存的问题" ("fix the BatchNorm implementation's mean and variance not being
saved by state_dict") - https://github.com/d2l-ai/d2l-zh/pull/1265 ("使用register_buffer注册
变量均值和方差使得均值和方差能够被state_dict保存": register the mean and variance with
register_buffer so that state_dict saves them). Here a small conv net on the 8x8 digits
with that batch norm after each convolution, trained, saved with ``state_dict()``, loaded
into a new model, and scored. Fix: ``self.register_buffer('moving_mean', ...)``.

Measured (200 steps, 397 held-out digits, the reloaded model): held-out accuracy 0.569
against 0.945 fixed; seeds + 1000: 0.892 against 0.950.
"""
import torch
from torch import nn

from benchmarks.real_bugs._norms import digits, held_out_accuracy, train

TITLE = ("Fix(chapter_convolutional-modern): 修复BatchNorm实现中均值和方差无法通过 "
         "state_dict… 保存的问题")
LINK = "https://github.com/d2l-ai/d2l-zh/pull/1265"
EXPECTED = ("NORM_STATISTICS_NEVER_ESTIMATED",)
STEPS = 200


def batch_norm(X, gamma, beta, moving_mean, moving_var, training, eps=1e-5, momentum=0.9):
    if not training:
        X_hat = (X - moving_mean) / torch.sqrt(moving_var + eps)
    else:
        mean = X.mean(dim=(0, 2, 3), keepdim=True)
        var = ((X - mean) ** 2).mean(dim=(0, 2, 3), keepdim=True)
        X_hat = (X - mean) / torch.sqrt(var + eps)
        with torch.no_grad():
            moving_mean = momentum * moving_mean + (1.0 - momentum) * mean
            moving_var = momentum * moving_var + (1.0 - momentum) * var
    return gamma * X_hat + beta, moving_mean, moving_var


class BatchNorm(nn.Module):
    def __init__(self, num_features, registered):
        super().__init__()
        shape = (1, num_features, 1, 1)
        self.gamma = nn.Parameter(torch.ones(shape))
        self.beta = nn.Parameter(torch.zeros(shape))
        if registered:
            self.register_buffer("moving_mean", torch.zeros(shape))
            self.register_buffer("moving_var", torch.ones(shape))
        else:                                   # BUG: plain attributes, not in state_dict()
            self.moving_mean = torch.zeros(shape)
            self.moving_var = torch.ones(shape)

    def forward(self, X):
        Y, self.moving_mean, self.moving_var = batch_norm(
            X, self.gamma, self.beta, self.moving_mean, self.moving_var, self.training)
        return Y


def build(fixed):
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), BatchNorm(16, fixed), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), BatchNorm(32, fixed), nn.ReLU(),
        nn.Flatten(), nn.Linear(32 * 4 * 4, 10))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train_rows, held_out = digits(images=True)
    model = build(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    mon = train(model, optimizer, train_rows, steps, **watch)
    checkpoint = {k: v.clone() for k, v in model.state_dict().items()}   # torch.save(...)
    restored = build(fixed)
    restored.load_state_dict(checkpoint)                                 # torch.load(...)
    mon.test_accuracy = held_out_accuracy(restored, held_out)
    return mon
