"""Temporal ensembling (each unlabelled image's target is a bias-corrected running average
of the network's past predictions on it, matched by a mean-squared consistency term whose
weight ramps up as exp(-5 (1 - t)^2)) written with a network whose last layer is a
softmax, and a supervised loss that applies its own softmax again: a cross-entropy "with
logits" on probabilities. The second softmax squeezes every prediction into a narrow band
around uniform (inputs in [0, 1] differ by at most 1), so the supervised gradient stays
small and nearly flat however wrong the prediction is, and the few labels barely teach;
the consistency term, which reads the probabilities correctly, then mostly agrees with
itself. The loss falls slowly, nothing errors.

Reported: "Some questions about the codes" -
https://github.com/tensorfreitas/Temporal-Ensembling-for-Semi-Supervised-Learning/issues/7
(among the reporter's findings: "your model's output is classification possibility after
Softmax activation, but you computed the loss with another redundant softmax (e.g.
tf.losses.softmax_cross_entropy ...)", offered as a reason the code cannot reach the
paper's accuracy; the author thanked them and undertook to check). Here semi-supervised
digits (benchmarks/real_bugs/_semi180.py): 20 labelled digits, 1,200 unlabelled ones with
an ensemble target each (momentum 0.6, bias-corrected), stochastic views on every pass,
an MLP ending in a softmax, Adam, the consistency weight ramped to 30 over the first 80% of
the run. Fix: the supervised term as the negative log of the softmax output
(``nll_loss(log(p))``), one softmax.

Measured (600 steps, 500 held-out digits, eval mode): seed 0, held-out accuracy 0.754 for
the bug against 0.772 for the fixed twin; seeds shifted by 1000, 0.766 against 0.816.
Adam (the paper's optimizer) rescales the shrunken supervised gradient, which keeps the
harm moderate.
"""
import math

import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._semi180 import accuracy, classifier, split, strong, weak

TITLE = "Some questions about the codes"
LINK = "https://github.com/tensorfreitas/Temporal-Ensembling-for-Semi-Supervised-Learning/issues/7"
EXPECTED = ("DOUBLE_SOFTMAX",)
STEPS = 600
BATCH = 64
LABELLED = 20
MOMENTUM = 0.6
MAX_WEIGHT = 30.0
RAMP = 0.8


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x_lb, y_lb, x_ulb, _, x_test, y_test = split(LABELLED)
    model = nn.Sequential(classifier(), nn.Softmax(dim=1))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    ensemble = torch.zeros(len(x_ulb), 10)       # Z: running average of predictions
    seen = torch.zeros(len(x_ulb))               # how often each row was averaged
    with nd.watch(model, optimizer, **watch) as mon:
        for step in range(steps):
            rows = torch.randperm(len(x_ulb))[:BATCH]
            probs = model(torch.cat([weak(x_lb), strong(x_ulb[rows])]))
            probs_lb, probs_u = probs[:len(x_lb)], probs[len(x_lb):]
            if fixed:
                sup_loss = F.nll_loss(torch.log(probs_lb + 1e-8), y_lb)
            else:
                sup_loss = F.cross_entropy(probs_lb, y_lb)     # BUG: softmax of a softmax
            seen[rows] += 1
            ensemble[rows] = MOMENTUM * ensemble[rows] + (1 - MOMENTUM) * probs_u.detach()
            target = ensemble[rows] / (1 - MOMENTUM ** seen[rows])[:, None]
            t = min(step / (RAMP * steps), 1.0)
            weight = MAX_WEIGHT * math.exp(-5 * (1 - t) ** 2)
            cons_loss = ((probs_u - target) ** 2).mean()
            loss = sup_loss + weight * cons_loss
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, x_test, y_test)
    return mon
