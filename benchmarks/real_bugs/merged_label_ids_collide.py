"""Two labelled sources merged into one training set, each numbering its classes from 0: the
offset meant for the second source's ids is added to the whole concatenation, so both
sources land on the same ids and their classes collide. A digit 0 and a digit 5 now carry
one label; the ids 0-4 the head has outputs for are never a target.

Reported: "Waht's the meaning of this line?" - https://github.com/DagnyT/hardnet/issues/25
(on ``labels = torch.cat([labels, datasets[i][1]]) + torch.max(labels) + 1`` in the loader
that merges the training sets: "datasets[0][1][:n1]==datasets[1][1][:n1], but they are not
the positive pairs"; the author: "yes, it's a bug, technically it should have been like
this: labels = torch.cat([labels, datasets[i][1]+torch.max(labels)+1]"). Here the digits 0-4
and 5-9 are the two sources, each with its own ids 0-4, merged with the report's line for
a ten-class head. Fix: the offset added to the new source's ids only.

Measured (300 steps, 297 held-out digits scored against their true digit): the bug's
accuracy is 0.43 (each pair of digits is one merged class, predicted as ids 5-9, which
can be right only for the second source's digits), the fixed twin's 0.86.

Named as TARGET_IDS_OFFSET: the cross-entropy's targets never name the ids 0-4 of its ten
columns (missed as it came: nothing looked at the lowest ids).
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, mlp, train_watched

TITLE = "Waht's the meaning of this line?"
LINK = "https://github.com/DagnyT/hardnet/issues/25"
EXPECTED = ("TARGET_IDS_OFFSET",)
STEPS = 300
HELD_OUT = 297


def sources(x, y):
    """The two labelled sets, each numbering its own classes from 0."""
    first, second = y < 5, y >= 5
    return (x[first], y[first]), (x[second], y[second] - 5)


def merged(datasets, fixed):
    inputs, labels = datasets[0]
    for more_inputs, more_labels in datasets[1:]:
        inputs = torch.cat([inputs, more_inputs])
        if fixed:
            labels = torch.cat([labels, more_labels + labels.max() + 1])
        else:   # BUG: the offset shifts every label, the earlier sources' too
            labels = torch.cat([labels, more_labels]) + labels.max() + 1
    return inputs, labels


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    x_train, y_train = merged(sources(x[:-HELD_OUT], y[:-HELD_OUT]), fixed)
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    mon = train_watched(model, optimizer, nn.CrossEntropyLoss(),
                        batches(x_train, y_train, steps), **watch)
    with torch.no_grad():
        mon.accuracy = round(float((model(x[-HELD_OUT:]).argmax(1) == y[-HELD_OUT:])
                                   .float().mean()), 3)
    return mon
