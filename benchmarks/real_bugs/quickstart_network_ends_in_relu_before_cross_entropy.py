"""The "Learn the Basics" network ends its nn.Sequential with an nn.ReLU after the last
nn.Linear, and its output goes to nn.CrossEntropyLoss as the logits: every negative logit
is cut to 0, so a wrong class can be pushed down no further than 0, and an output unit whose
pre-activation is negative on a batch gets no gradient from it at all.

Reported: "[Introduction to PyTorch] Bug on model definition part" -
https://github.com/pytorch/tutorials/issues/1526 ("There's ReLU activation after the
logit. I think the final ReLU should be removed. This part would be confusing for the
beginners"; fixed by removing the last nn.ReLU in pytorch/tutorials#1644 and #1654). Here
the tutorial's three-layer NeuralNetwork (Flatten, Linear-ReLU-Linear-ReLU-Linear, narrowed
to 8x8 digits and 128 hidden units) trained as the tutorial trains it: CrossEntropyLoss,
SGD, batches of 64. Fix: no activation after the last Linear.

Measured harm (held-out accuracy on 400 digits after 300 steps): 0.45 vs 0.94 with the fix;
seeds + 1000: 0.46 vs 0.94.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._beginner_multiclass import (held_out_logits, predicted_accuracy,
                                                       record, split_digits)
from benchmarks.real_bugs._common import batches

TITLE = "[Introduction to PyTorch] Bug on model definition part"
LINK = "https://github.com/pytorch/tutorials/issues/1526"
EXPECTED = ("DEAD_RELU", "OUTPUT_UNITS_WITHOUT_GRADIENT")
STEPS = 300


class NeuralNetwork(nn.Module):
    def __init__(self, relu_on_logits):
        super().__init__()
        self.flatten = nn.Flatten()
        layers = [nn.Linear(8 * 8, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(),
                  nn.Linear(128, 10)]
        if relu_on_logits:
            layers.append(nn.ReLU())         # BUG: a ReLU after the logits
        self.linear_relu_stack = nn.Sequential(*layers)

    def forward(self, x):
        return self.linear_relu_stack(self.flatten(x))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x_train, y_train, x_test, y_test = split_digits(images=True)
    model = NeuralNetwork(relu_on_logits=not fixed)
    loss_fn = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x_train, y_train, steps, seed=int(torch.randint(10**6, ()))):
            pred = model(xb)
            loss = loss_fn(pred, yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    record(__name__, predicted_accuracy(held_out_logits(model, x_test).argmax(1), y_test))
    return mon
