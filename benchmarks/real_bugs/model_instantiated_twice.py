"""The model is built twice - once where its class is defined, once again before the
training loop - and the optimizer was made from the first: the loop trains the second
model, whose parameters no optimizer holds, so nothing learns.

Reported: "char-rnn-classification parameters update method confusion" -
https://github.com/spro/practical-pytorch/issues/9 (with optimizer.step() "loss is big,
and loss flow up and down, do not diminish"; the author: "I have the model instantiated
twice ... Try moving the optimizer to below the second one"). Here a digits MLP with SGD.
Fix: build the optimizer from the model that is trained.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, mlp, train_watched

TITLE = "char-rnn-classification parameters update method confusion"
LINK = "https://github.com/spro/practical-pytorch/issues/9"
EXPECTED = ("OPTIMIZER_MISSING_PARAMS",)
STEPS = 150


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()                                    # first instance, next to the class
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    model = mlp()                                    # BUG: built again before training...
    if fixed:                                        # ...and the optimizer not rebuilt
        optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    return train_watched(model, optimizer, nn.CrossEntropyLoss(), batches(x, y, steps),
                         **watch)
