"""Sigmoid outputs trained with squared error against one-hot digits at a small SGD rate:
the outputs settle near the labels' mean, about 0.1 for every class and every image, and
the network tells the digits apart barely better than chance.

Reported: "neural network trained with PyTorch outputs the mean value for every input" -
https://whosebug.com/index.php/question/6116914/neural-network-trained-with-PyTorch-outputs-the-mean-value-for-every-input
(a copy of the Stack Overflow question: a 784-800-10 sigmoid network, "I use mean squared
error as the loss function and stochastic gradient descent with a learning rate of 0.001",
each image's loss backpropagated on its own inside the batch, and test outputs such as
"tensor([0.0978, 0.1225, 0.1018, 0.0961, ...])"). Here the question's network and loop on
the digits.
Fix measured here: cross-entropy on the logits (no output sigmoid), the loss a classifier
is trained with, at a rate of 0.01 (at 0.001 neither loss learns in 150 steps).

Measured (150 steps, 297 held-out digits, ``mon.held_out_accuracy``): the bug's accuracy
is 0.13, the fixed twin's 0.58.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "neural network trained with PyTorch outputs the mean value for every input"
LINK = ("https://whosebug.com/index.php/question/6116914/"
        "neural-network-trained-with-PyTorch-outputs-the-mean-value-for-every-input")
EXPECTED = ("CLASSIFIER_TRAINED_WITH_SQUARED_ERROR", "LR_TOO_LOW")
STEPS = 150
HELD_OUT = 297
BATCH_SIZE = 32


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    x_train, y_train, x_test, y_test = x[:-HELD_OUT], y[:-HELD_OUT], x[-HELD_OUT:], y[-HELD_OUT:]
    layers = [nn.Linear(64, 800), nn.Sigmoid(), nn.Linear(800, 10)]
    if not fixed:
        layers.append(nn.Sigmoid())           # BUG: sigmoid outputs scored by squared error
    model = nn.Sequential(*layers)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01 if fixed else 0.001)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x_train, y_train, steps, batch_size=BATCH_SIZE):
            optimizer.zero_grad()
            total = 0.0
            for image, label in zip(xb, yb):      # the question's per-image backward
                output = model(image[None])
                if fixed:
                    loss = nn.functional.cross_entropy(output, label[None])
                else:
                    loss = nn.functional.mse_loss(output, nn.functional.one_hot(label, 10)[None].float())
                loss.backward()
                total += loss.detach()
            optimizer.step()
            mon.step(total / len(xb))
    with torch.no_grad():
        mon.held_out_accuracy = round(float((model(x_test).argmax(1) == y_test).float().mean()), 3)
    return mon
