"""Binary labels made by thresholding a column at a value chosen on its log scale, while
the column is still in raw units: every run time in seconds is above a threshold meant for
log-seconds, so every label is 1. The classifier reaches loss 0 and accuracy 1 within a
few steps - by answering 1 - and has learnt nothing.

Reported: "[lab1]第二部分loss为0，accuracy为1该怎么反思" (part two: loss 0 and accuracy 1, what
went wrong?) - https://github.com/Smadx/USTC-ML24-Fall/issues/35 (the course's answer:
"可能你没对分类问题的Run_time列取对数,导致所有样本的label都是1" - you probably did not take
the log of the Run_time column for the classification task, so every sample's label is
1). Here a run time in seconds grows with the digit drawn (exp(1 + 0.35 x digit), 2.7 s to
64 s) and the task labels the slow runs: log(run time) > 2.5. Fix: take the log first.

Measured (150 steps, held-out rows labelled correctly): the bug's balanced accuracy is
0.50 (it answers "slow" for every row), the fixed twin's 0.84.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, mlp, train_watched

TITLE = "[lab1]第二部分loss为0，accuracy为1该怎么反思"
LINK = "https://github.com/Smadx/USTC-ML24-Fall/issues/35"
EXPECTED = ("TARGETS_ALL_ONE_CLASS", "TARGETS_ALL_ONE_VALUE")
STEPS = 150
HELD_OUT = 297
SLOW_LOG_SECONDS = 2.5      # the task's threshold, on log(run time in seconds)


def run_times():
    """Digit pixels and a run time in seconds that grows with the digit drawn."""
    x, digit = classification()
    return x, torch.exp(1.0 + 0.35 * digit.float())


def slow_labels(seconds, fixed):
    # BUG (fixed=False): the log-scale threshold compared with raw seconds
    column = torch.log(seconds) if fixed else seconds
    return (column > SLOW_LOG_SECONDS).float()


def logit_loss(output, target):
    return nn.functional.binary_cross_entropy_with_logits(output.squeeze(1), target)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, seconds = run_times()
    y = slow_labels(seconds, fixed)
    model = mlp(outputs=1)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    mon = train_watched(model, optimizer, logit_loss,
                        batches(x[:-HELD_OUT], y[:-HELD_OUT], steps), **watch)
    with torch.no_grad():
        truth = slow_labels(seconds[-HELD_OUT:], fixed=True).bool()
        said = model(x[-HELD_OUT:]).squeeze(1) > 0
        recalls = [(said[truth] == True).float().mean(), (said[~truth] == False).float().mean()]
        mon.balanced_accuracy = round(float(sum(recalls) / 2), 3)
    return mon
