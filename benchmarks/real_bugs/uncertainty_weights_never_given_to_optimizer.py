"""Learned uncertainty weights for a two-task loss (Kendall et al. 2018) that are never
learned: the log-variances are ``nn.Parameter``s of the LOSS module, while the optimizer is
built from ``model.parameters()`` alone. Backward fills their ``.grad`` every step and
nothing steps them, so the task weights ``exp(-s)`` stay at their initial values for the
whole run. No error, no NaN: the total loss falls, and the weighting it was meant to learn - the
noisy, large-scale task weighed down - never happens.

Reported: "Multitask learning with uncertainty ?" - https://github.com/ifzhang/FairMOT/issues/19
(FairMOT weighs its detection and re-identification losses by two learnable log-variances
``s_det`` and ``s_id``, created in the loss class; the reporter could not find them in any
optimizer - "it needs to be added to the optimizer to be updated not just make it a
parameter" - and the author answered "I have added the parameters to optimizer and fixed the
bug"). Here a shared encoder with two heads on the 8x8 digits: the digit (cross-entropy, the
re-identification role) and a regression of each image's total ink / 4 with noisy labels
(squared error, the detection role: a loss no model can push below its label noise's
variance, 4). The log-variances start where FairMOT's do (s_det = -1.85,
s_id = -1.05); SGD with momentum 0.9 at 0.03, 600 steps (FairMOT trains with Adam; under Adam
both log-variances move by about the same step and the learned weights keep the initial
ratio: there the bug did no harm in this small setting). Fix: give the loss module's parameters to
the optimizer too.

Measured (297 held-out digits): seed 0: held-out digit accuracy 0.101 for the bug against
0.892 for the fixed twin; seeds shifted by 1000: 0.104 against 0.886. The bug's digit loss
stays at 2.30 (chance) for the whole run: the ink task, weighed 6.36 for good, swamps the
shared encoder. The fixed twin learns ink weight 0.19 (1/0.19 = 5.3: the ink
loss, near the label noise's variance) and raises the digit weight as that loss falls.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._mt161 import accuracy, digits, encoder, rows

TITLE = "Multitask learning with uncertainty ?"
LINK = "https://github.com/ifzhang/FairMOT/issues/19"
EXPECTED = ("OPTIMIZER_MISSING_PARAMS",)
STEPS = 600
INK_NOISE = 2.0        # standard deviation of the noise on the ink labels (ink spans ~3.5-7)
LR = 0.03


class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = encoder()
        self.digit = nn.Linear(32, 10)
        self.ink = nn.Linear(32, 1)

    def forward(self, x):
        h = self.encoder(x)
        return self.digit(h), self.ink(h).squeeze(1)


class UncertaintyLoss(nn.Module):
    """0.5 * (exp(-s_det) * det + exp(-s_id) * id + s_det + s_id), FairMOT's form."""

    def __init__(self):
        super().__init__()
        self.s_det = nn.Parameter(torch.tensor(-1.85))
        self.s_id = nn.Parameter(torch.tensor(-1.05))

    def forward(self, det_loss, id_loss):
        return 0.5 * (torch.exp(-self.s_det) * det_loss + torch.exp(-self.s_id) * id_loss
                      + self.s_det + self.s_id)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_held, y_held = digits()
    ink = x.sum(1) / 4
    noisy_ink = ink + INK_NOISE * torch.randn(len(ink))
    model = TwoHeads()
    criterion = UncertaintyLoss()
    if fixed:        # the loss module's log-variances are trained too
        optimizer = torch.optim.SGD(list(model.parameters()) + list(criterion.parameters()),
                                    lr=LR, momentum=0.9)
    else:            # BUG: the optimizer holds the model's parameters only
        optimizer = torch.optim.SGD(model.parameters(), lr=LR, momentum=0.9)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in rows(len(x), steps):
            optimizer.zero_grad()
            digit_logits, ink_pred = model(x[index])
            loss = criterion(F.mse_loss(ink_pred, noisy_ink[index]),
                             F.cross_entropy(digit_logits, y[index]))
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        mon.held_out_accuracy = accuracy(model(x_held)[0], y_held)
    mon.weights_final = (round(float(torch.exp(-criterion.s_det.detach())), 3),
                         round(float(torch.exp(-criterion.s_id.detach())), 3))
    return mon
