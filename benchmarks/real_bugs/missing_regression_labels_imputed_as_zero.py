"""A multi-task network whose second task's label exists only for some samples - a
measurement of the object, defined only where the first task says an object is there - with
the missing labels filled in as 0 and the squared error taken over every sample. The
regression head is then also taught to output 0 on all the other samples: it has to learn a
jump from 0 to the real values across the first task's boundary, and wherever the shared
encoder is unsure which side a sample is on, the prediction is pulled toward 0. The loss
falls as usual (the zeros are the easiest targets in the batch), and the held-out error on
the samples that do have a label is what shows the bias.

Reported: "Multi-task learning, finding a loss function that "ignores" certain samples" -
https://datascience.stackexchange.com/questions/15181 (a network with a classification and
two regression outputs, the third valid only for samples the classifier calls positive; the
asker imputed 0 as that label for every negative sample and found that "that approach biases
towards 0", and asked for a loss that passes no gradient for those samples; the answer
weighs each sample's squared error by label / (label + eps), i.e. zero where the label is
the filler 0). Here a shared digits encoder with two heads: 'is it 5 or more' (binary
cross-entropy, every sample) and each image's total ink / 4 (squared error, defined only for
the digits 5-9, 0 filled in for the rest); Adam, 400 steps. Fix: the mask - the ink error
counted only on the samples that have an ink label.

Measured (held-out error: root mean squared ink error on the held-out digits 5-9, ink spans
about 3.5-6.4 there): seed 0: 1.39 for the bug against 0.057 for the fixed twin; seeds shifted by
1000: 1.24 against 0.052.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._mt161 import digits, encoder, rows

TITLE = 'Multi-task learning, finding a loss function that "ignores" certain samples'
LINK = "https://datascience.stackexchange.com/questions/15181"
EXPECTED = ("MISSING_LABELS_TRAINED_AS_ZERO",)
STEPS = 400


class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = encoder()
        self.positive = nn.Linear(32, 1)
        self.ink = nn.Linear(32, 1)

    def forward(self, x):
        h = self.encoder(x)
        return self.positive(h).squeeze(1), self.ink(h).squeeze(1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_held, y_held = digits()
    positive = (y >= 5).float()
    ink = torch.where(y >= 5, x.sum(1) / 4, torch.zeros(len(x)))   # 0 where there is none
    model = TwoHeads()
    optimizer = torch.optim.Adam(model.parameters(), lr=0.003)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in rows(len(x), steps):
            optimizer.zero_grad()
            positive_logit, ink_pred = model(x[index])
            squared = (ink_pred - ink[index]) ** 2
            if fixed:        # only the samples that have an ink label
                has_label = positive[index]
                ink_loss = (squared * has_label).sum() / has_label.sum().clamp(min=1)
            else:            # BUG: the filler zeros are trained on as labels
                ink_loss = squared.mean()
            loss = F.binary_cross_entropy_with_logits(positive_logit, positive[index]) + ink_loss
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        labelled = y_held >= 5
        _, ink_pred = model(x_held[labelled])
        mon.held_out_ink_rmse = round(
            float(((ink_pred - x_held[labelled].sum(1) / 4) ** 2).mean().sqrt()), 3)
    return mon
