"""The optimizer is built with the weight-decay value where the learning rate belongs: the
run trains at 5e-4 instead of 0.05, a hundred times too slowly, and looks like a model that
"learns, but badly".

Reported: "torch_models bug" - https://github.com/offbit/evo-design/issues/3 ("The
weight_decay parameter is used instead of the lr one during optimizer initialization").
Here an MLP on the digits with SGD (momentum 0.9) meant to run at lr=0.05 with weight decay
5e-4. Fix: `SGD(params, lr=lr, momentum=0.9, weight_decay=weight_decay)`.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, mlp, train_watched

TITLE = "torch_models bug"
LINK = "https://github.com/offbit/evo-design/issues/3"
EXPECTED = ("LR_TOO_LOW",)
STEPS = 150
LR = 0.05
WEIGHT_DECAY = 5e-4


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    lr = LR if fixed else WEIGHT_DECAY           # BUG: the weight decay as the learning rate
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9,
                                weight_decay=WEIGHT_DECAY)
    return train_watched(model, optimizer, nn.CrossEntropyLoss(), batches(x, y, steps),
                         **watch)
