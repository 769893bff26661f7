"""An image autoencoder whose output layer is a softmax over the pixels (the library's
default activation for an output layer, left in place). A softmax row sums to 1, so the
reconstruction of a digit whose pixels sum to about 20 can only be a faint smear: the MSE
falls a little (the smear takes the shape of the average digit) and nothing errors, but the
reconstructions are worse than predicting the mean image.

Reported: "Fix MNISTAutoencoder: switch output layer to LEAKYRELU" -
https://github.com/deeplearning4j/deeplearning4j-examples/pull/1002 ("SOFTMAX default does
not work with autoencoders", "Fix broken MNISTAutoencoder example"; merged). Here the
example's shape on the 8x8 digits: 64-32-8-32-64 with LeakyReLU hidden layers, MSE,
AdaGrad at 0.05 as the example uses, batch 64. Fix: LeakyReLU on the output layer, as the
merged pull request does.

Measured (600 steps; reconstruction MSE over 512 held-out digits, the mean held-out image
scoring 0.073): seed 0, 0.210 for the bug against 0.026 for the fixed twin; seeds shifted
by 1000, 0.209 against 0.025.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._beginner_autoencoder import digit_batches, digits

TITLE = "Fix MNISTAutoencoder: switch output layer to LEAKYRELU"
LINK = "https://github.com/deeplearning4j/deeplearning4j-examples/pull/1002"
EXPECTED = ("TARGETS_OUTSIDE_OUTPUT_RANGE",)
STEPS = 600


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, held_out = digits()
    output = nn.LeakyReLU() if fixed else nn.Softmax(dim=1)   # BUG: softmax over pixels
    model = nn.Sequential(nn.Linear(64, 32), nn.LeakyReLU(), nn.Linear(32, 8), nn.LeakyReLU(),
                          nn.Linear(8, 32), nn.LeakyReLU(), nn.Linear(32, 64), output)
    optimizer = torch.optim.Adagrad(model.parameters(), lr=0.05)
    with nd.watch(model, optimizer, **watch) as mon:
        for x in digit_batches(train, steps):
            loss = F.mse_loss(model(x), x)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        mon.reconstruction_mse = F.mse_loss(model(held_out), held_out).item()
    return mon
