"""A multi-task loss whose per-task weight is folded into the per-sample weights before those
are normalised by their batch mean: ``w = task_weight * sample_weight; w = w / w.mean()``.
Dividing by the mean cancels any constant factor, so every task ends up weighted exactly 1
whatever its configured weight. Here the configured 0.05 on a noisy, large-scale auxiliary
regression becomes 1: that task's gradient swamps the shared encoder and the main task
learns far worse. The loss looks ordinary and falls; nothing reports that the weight the
configuration names never reached the loss.

Reported: "[bugfix] fix mtl weight always equal to 1 after div by mean" -
https://github.com/alibaba/TorchEasyRec/pull/171 (TorchEasyRec's multi-task rank models
normalise each task's loss weights by their mean; the fix, as its title says, stops that
division from turning the multi-task weight into 1). Here a shared digits encoder with two
towers: the digit (cross-entropy, task weight 1) and each image's total ink with label noise
(squared error, task weight 0.05), both with per-sample weights of 1 or 2; Adam, 400 steps.
Fix: normalise the sample weights by their mean first, then multiply by the task weight.

Measured (297 held-out digits): seed 0: held-out digit accuracy 0.832 for the bug against
0.896 for the fixed twin; seeds shifted by 1000: 0.724 against 0.919.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._mt161 import accuracy, digits, encoder, rows

TITLE = "[bugfix] fix mtl weight always equal to 1 after div by mean"
LINK = "https://github.com/alibaba/TorchEasyRec/pull/171"
EXPECTED = ("TASK_WEIGHT_CANCELLED",)
STEPS = 400
TASK_WEIGHTS = (1.0, 0.05)       # digit, ink
INK_NOISE = 4.0                  # standard deviation of the ink labels' noise (ink ~3.5-7)


class TwoTowers(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = encoder()
        self.digit = nn.Linear(32, 10)
        self.ink = nn.Linear(32, 1)

    def forward(self, x):
        h = self.encoder(x)
        return self.digit(h), self.ink(h).squeeze(1)


def loss_weights(task_weight, sample_weight, fixed):
    if fixed:
        return task_weight * (sample_weight / sample_weight.mean())
    weight = task_weight * sample_weight
    return weight / weight.mean()       # BUG: the mean cancels task_weight


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_held, y_held = digits()
    noisy_ink = x.sum(1) / 4 + INK_NOISE * torch.randn(len(x))
    sample_weight = torch.randint(1, 3, (len(x),)).float()
    model = TwoTowers()
    optimizer = torch.optim.Adam(model.parameters(), lr=0.003)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in rows(len(x), steps):
            optimizer.zero_grad()
            digit_logits, ink_pred = model(x[index])
            per_sample = (F.cross_entropy(digit_logits, y[index], reduction="none"),
                          F.mse_loss(ink_pred, noisy_ink[index], reduction="none"))
            loss = sum((loss_weights(w, sample_weight[index], fixed) * l).mean()
                       for w, l in zip(TASK_WEIGHTS, per_sample))
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        mon.held_out_accuracy = accuracy(model(x_held)[0], y_held)
    return mon
