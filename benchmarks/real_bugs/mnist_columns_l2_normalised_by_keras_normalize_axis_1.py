"""A first MNIST tutorial "normalises" its images with ``tf.keras.utils.normalize(x,
axis=1)``: that is no pixel scaling but an L2 normalisation of every column of every
image (axis 1 of (n, rows, cols) runs down a column). Each column is divided by its own
length, so a faint stroke column comes out as bright as a thick one and the relative
intensities across the image - part of what tells the digits apart - are lost. The MLP
trains fine on the result but generalises worse than on plainly scaled pixels.

Reported: "Does this tutorial use normalization the right way?" -
https://ai.stackexchange.com/questions/17963/does-this-tutorial-use-normalization-the-right-way
("The normalization is done with x_train = tf.keras.utils.normalize(x_train, axis=1) ...
some pixels which were black before have become grey now. Columns with few black pixels
before result in black pixels"; the answer: "The tutorial's normalization is done
incorrectly ... each column of every image was normalized relatively to itself"). Here
the 8x8 digits as 8-bit images, the tutorial's Flatten-Dense(128)-Dense(128)-Dense(10)
MLP, Adam lr 1e-3, batches of 32, 200 steps, held-out accuracy on 400 digits (normalised
the same way). Fix: scale the pixels, x / 255.

Measured (held-out accuracy, bug vs fixed): seed 0: 0.918 vs 0.945; seeds + 1000: 0.928
vs 0.955.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._prep import accuracy, raw_digits

TITLE = "Does this tutorial use normalization the right way?"
LINK = ("https://ai.stackexchange.com/questions/17963/"
        "does-this-tutorial-use-normalization-the-right-way")
EXPECTED = ("INPUT_ROWS_STANDARDISED",)
STEPS = 200


def keras_normalize(x, axis):
    """tf.keras.utils.normalize(x, axis, order=2): x over its L2 norm along ``axis``
    (zero norms left at 1)."""
    norm = x.norm(dim=axis, keepdim=True)
    return x / torch.where(norm == 0, torch.ones_like(norm), norm)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_test, y_test = raw_digits(images=True)
    x, x_test = x[:, 0], x_test[:, 0]                   # (n, rows, cols) like mnist
    if fixed:
        x, x_test = x / 255.0, x_test / 255.0
    else:                                               # BUG when not fixed: each
        x = keras_normalize(x, axis=1)                  # column of each image scaled
        x_test = keras_normalize(x_test, axis=1)        # to unit length
    model = nn.Sequential(nn.Flatten(), nn.Linear(64, 128), nn.ReLU(),
                          nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps, batch_size=32):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
        mon.held_out_accuracy = accuracy(model, x_test, y_test)
    return mon
