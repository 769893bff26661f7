"""A multi-label tagger with many sparse labels (each present in a few percent of the
samples) trained with an unweighted BCEWithLogitsLoss: every label's cheapest answer is
"absent", the loss falls quickly to the labels' entropy and sits there, and the model
predicts no label at all for any input.

Reported: "500+ multi-labels only predicts zeros" -
https://github.com/appvision-ai/fast-bert/issues/52 ("at first fast-bert predicts various
values between 0-1 for every label, but the more I train the more it predicts zeros for
everything ... only 1/500 is a positive label while the rest are zeros"; the answer: "You
could use the pos_weight argument to the loss function (BCEWithLogitsLoss or BCELoss) to
give greater weight to positive instances ... You have very sparse labels ... so naturally
the model learns to guess 0 all the time"). Here collages of 3x3 digit cells, 90 labels
"digit d in cell c" (each present in ~3% of the images, ~3 per image), an MLP tagger, SGD.

Measured (300 steps, 600 held-out collages, a label predicted when its logit is above 0):
the bug's recall is 0.0 (no label predicted on any image), the fixed twin's 0.92;
ranked (each image's top-k labels, k its true count) micro-F1 0.15 against 0.54.
Fix: ``BCEWithLogitsLoss(pos_weight=negatives / positives)``, one weight per label.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, train_watched
from benchmarks.real_bugs._digit_collages import collages, digit_at_cell

TITLE = "500+ multi-labels only predicts zeros"
LINK = "https://github.com/appvision-ai/fast-bert/issues/52"
EXPECTED = ("RARE_POSITIVES_NEVER_PREDICTED",)
STEPS = 300
GRID, FILL = 3, 0.3


def data(count=3000, held_out=False):
    x, cells = collages(count, grid=GRID, fill=FILL, held_out=held_out)
    return x, digit_at_cell(cells)


def loss_for(y, fixed):
    if not fixed:
        return nn.BCEWithLogitsLoss()       # BUG: 3% positives weigh like the 97% negatives
    positives = y.sum(0).clamp(min=1)
    return nn.BCEWithLogitsLoss(pos_weight=(len(y) - positives) / positives)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = data()
    net = nn.Sequential(nn.Linear(64 * GRID * GRID, 128), nn.ReLU(),
                        nn.Linear(128, y.shape[1]))
    optimizer = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
    return train_watched(net, optimizer, loss_for(y, fixed), batches(x, y, steps), **watch)
