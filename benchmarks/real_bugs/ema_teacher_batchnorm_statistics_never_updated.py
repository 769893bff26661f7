"""Mean teacher whose exponential moving average is taken over ``model.parameters()`` only:
batch-norm running statistics are buffers, not parameters, so the teacher (a copy of the
student made before training, run in eval mode) keeps the statistics of an untrained
network (mean 0, variance 1) while its weights follow the student's. Its predictions, the
consistency targets and the model that is evaluated, are those of a network whose
normalisation no longer matches its weights.

Reported: "Qustion about the update method of ema_model" -
https://github.com/YU1ut/MixMatch-pytorch/issues/16 (the asker replaced the repository's
EMA with Mean Teacher's update and "the result is completely failed"; the maintainer:
"Mean-Teacher only uses `model.parameters()` to update EMA model but `model.parameters()` do
not contain the stats of BatchNorm ... in this code no samples are passed through EMA model").
The same bug was reported in saltoricristiano/cosmix-uda#21 ("You update only the
parameters, but forget the model buffers"). Here the digits (the last 400 held out), 150
labelled rows and the rest unlabelled, a batch-normalised MLP, Gaussian input noise, a
consistency weight of 5 on the squared distance of the softmaxes, EMA decay 0.99, Adam.
Measured on the held-out digits (seed 0, 300 steps): the EMA teacher's accuracy 0.317 with
its statistics left at their initial values, 0.808 with them copied from the student.
Fix: average (or copy) the buffers too: iterate over ``state_dict()`` or ``buffers()``.
"""
import copy

import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._distillation import digits_split

TITLE = "Qustion about the update method of ema_model"
LINK = "https://github.com/YU1ut/MixMatch-pytorch/issues/16"
EXPECTED = ("NORM_STATISTICS_NEVER_ESTIMATED",)
STEPS = 300
LABELLED = 150
DECAY = 0.99
CONSISTENCY = 5.0
NOISE = 0.3


def bn_mlp():
    return nn.Sequential(nn.Linear(64, 128), nn.BatchNorm1d(128), nn.ReLU(),
                         nn.Linear(128, 128), nn.BatchNorm1d(128), nn.ReLU(),
                         nn.Linear(128, 10))


@torch.no_grad()
def update_teacher(teacher, student, with_buffers):
    for t, s in zip(teacher.parameters(), student.parameters()):
        t.mul_(DECAY).add_(s, alpha=1.0 - DECAY)
    if with_buffers:          # the fix: the running statistics follow the student's too
        for t, s in zip(teacher.buffers(), student.buffers()):
            t.copy_(s)


def noisy(x, generator):
    return x + NOISE * torch.randn(x.shape, generator=generator)


def trained(fixed=False, steps=STEPS, **watch):
    """(monitor, the EMA teacher) after training."""
    x, y, _, _ = digits_split()
    torch.manual_seed(0)
    student = bn_mlp()
    teacher = copy.deepcopy(student).eval()
    for p in teacher.parameters():
        p.requires_grad_(False)
    optimizer = torch.optim.Adam(student.parameters(), lr=2e-3)
    noise = torch.Generator().manual_seed(5)
    labelled = batches(x[:LABELLED], y[:LABELLED], steps, batch_size=32, seed=2)
    with nd.watch(student, optimizer, **watch) as mon:
        for (xu, _), (xl, yl) in zip(batches(x, y, steps, batch_size=64), labelled):
            with torch.no_grad():
                target = F.softmax(teacher(noisy(xu, noise)), dim=-1)
            optimizer.zero_grad()
            consistency = F.mse_loss(F.softmax(student(noisy(xu, noise)), dim=-1), target)
            loss = F.cross_entropy(student(xl), yl) + CONSISTENCY * consistency
            loss.backward()
            optimizer.step()
            update_teacher(teacher, student, with_buffers=fixed)   # BUG: buffers left out
            mon.step(loss)
    return mon, teacher


def run(fixed=False, steps=STEPS, **watch):
    return trained(fixed, steps, **watch)[0]
