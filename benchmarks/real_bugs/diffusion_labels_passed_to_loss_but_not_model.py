"""A "class-conditional" generative model on digits whose training step receives each
batch's labels, hands them to the loss function, and then never gives them to the network:
the velocity (denoising) network is called without the class, so it learns the
unconditional field and sampling "for class k" draws a digit of any class. The loss falls
exactly as an unconditional model's would; nothing errors.

Reported: "Is the label been taken as the condition ?" -
https://github.com/thorinf/consistency-mnist/issues/3 (the reporter: the label is passed to
the loss function but never applied to anything or to the denoiser; the author confirms it
was not used, and adds label conditioning with a dropout probability the same day). Here:
the flow-matching MLP of the classifier-free-guidance case (an 8x8-digit velocity field with
a learned class embedding, one extra "null" class), trained with its label dropout of 0.1;
the bug's network only ever receives the null class. Fix: pass the (dropped-out) labels to
the network.

Measured (600 Adam steps, batch 64, seed 0; a digit classifier trained on real digits, 0.92
held out, judges 100 samples per requested class, guidance 3): the judged class is the
requested one for 0.10 of the bug's samples and 1.00 of the fixed twin's.

How watch finds it: every id the class embedding's first training lookups read is its last
row, the null class (CONDITION_MOSTLY_NULL, rules/null_condition_lookups.py; the twin's
share is its dropout's 10%).
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._cgan import CLASSES, judge
from benchmarks.real_bugs._common import batches, classification
from benchmarks.real_bugs.cfg_null_label_drawn_with_inverted_probability import (
    NULL, VelocityField, drop_labels, sample)

TITLE = "Is the label been taken as the condition ?"
LINK = "https://github.com/thorinf/consistency-mnist/issues/3"
EXPECTED = ("CONDITION_MOSTLY_NULL",)
STEPS = 600
PER_CLASS = 100


def flow_loss(model, point, t, target, labels, fixed):
    given = drop_labels(labels, True)
    if not fixed:
        given = torch.full_like(labels, NULL)          # BUG: the labels reach no layer
    return F.mse_loss(model(point, t, given), target)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    scaled = x * 2 - 1
    model = VelocityField()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for data, labels in batches(scaled, y, steps):
            noise = torch.randn_like(data)
            t = torch.rand(len(data), 1)
            point = (1 - t) * noise + t * data
            optimizer.zero_grad()
            loss = flow_loss(model, point, t, data - noise, labels, fixed)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    clf = judge(x, y)
    state = torch.random.get_rng_state()
    torch.manual_seed(9)
    with torch.no_grad():
        requested = torch.arange(CLASSES).repeat(PER_CLASS)
        images = ((sample(model, requested) + 1) / 2).clamp(0, 1)
        judged = clf(images).argmax(1)
    torch.random.set_rng_state(state)
    mon.class_match = (judged == requested).float().mean().item()
    return mon
