"""A multi-label model whose forward ends in a softmax, trained with MultiLabelSoftMarginLoss,
which applies its own sigmoid to each score. The loss sees sigmoid(softmax(z)): every
softmax value is in [0, 1], so every probability the loss computes is in [0.5, 0.73]; an
absent label can never be scored below one half, and the softmax makes the present labels
compete for one unit of mass besides.

Reported: "Loss Calculation: MultilabelSoftMarginLoss on top of Softmax Output?" -
https://github.com/YapengTian/AVE-ECCV18/issues/15 ("The nn.MultilabelSoftMarginLoss operates
on your softmax output ... you will be applying a sigmoid operation (from the BCE) on your
original softmax output ... The softmax output would never accumulate a negative value and
hence, your sigmoid output can never go below 0.5"). Here collages of 2x2 digit cells, 10
labels "digit d appears" (1 to 4 per image), an MLP whose forward ends in
``nn.Softmax(dim=1)``.

Measured (300 steps, 600 held-out collages): with the loss's own reading (sigmoid > 0.5)
the bug predicts nearly every label on every image (recall 0.99), micro-F1 0.41; the
fixed twin's 0.69. Ranked (each image's top-k labels, k its true count): 0.64 against 0.76.
Fix: no softmax in the model; the logits go to MultiLabelSoftMarginLoss (or
BCEWithLogitsLoss), and torch.sigmoid turns them into per-label probabilities.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, train_watched
from benchmarks.real_bugs._digit_collages import collages, digits_present

TITLE = "Loss Calculation: MultilabelSoftMarginLoss on top of Softmax Output?"
LINK = "https://github.com/YapengTian/AVE-ECCV18/issues/15"
EXPECTED = ("DOUBLE_SIGMOID",)
STEPS = 300


def model(fixed):
    layers = [nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 10)]
    if not fixed:
        layers.append(nn.Softmax(dim=1))    # BUG: probabilities into a loss that takes logits
    return nn.Sequential(*layers)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, cells = collages(3000)
    y = digits_present(cells)
    net = model(fixed)
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
    return train_watched(net, optimizer, nn.MultiLabelSoftMarginLoss(),
                         batches(x, y, steps), **watch)
