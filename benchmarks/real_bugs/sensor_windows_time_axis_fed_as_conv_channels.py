"""Accelerometer windows kept in the (batch, time_steps, features) layout of the CSV
(and of Keras' Conv1D) and fed straight to a PyTorch ``nn.Conv1d``, which reads axis 1 as
channels and slides along axis 2: the network's in_channels is set to the window length,
so every time step becomes an input channel and the kernel slides across the three sensor
axes instead of along time. Nothing fails (the shapes agree once in_channels is the window
length); each filter is a dense read of the whole window at one pair of neighbouring axes,
nothing is shared across time, and a gesture that can sit anywhere in the window has to be
learned separately at every position.

Reported: "How make the input size for Multivariate time series data and use it for
Conv1d?" - https://discuss.pytorch.org/t/how-make-the-input-size-for-multivariate-time-series-data-and-use-it-for-conv1d/146852
("The input size that I made is: [batch_size, time_stamp, number_of_features] ... I am not
sure that I need to transpose my input to [batch_size, number_of_features, time_stamp]?";
the Conv1d is built for the layout as given). Here 3-axis windows of 64 samples in which
one of four short gestures (a 12-sample motion pattern over the axes) occurs at a random
position in noise, a two-layer 1-D CNN with a global average.
Fix: ``x.permute(0, 2, 1)`` (channels = sensor axes, length = time) and in_channels=3.

Measured harm (held-out window accuracy): 0.736 vs 0.953 for the fixed twin;
seeds + 1000: 0.776 vs 0.969.
"""
import numpy as np
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._sensor_cnn import CHANNELS, CLASSES, ConvNet, accuracy

TITLE = "How make the input size for Multivariate time series data and use it for Conv1d?"
LINK = ("https://discuss.pytorch.org/t/how-make-the-input-size-for-multivariate-time-series-"
        "data-and-use-it-for-conv1d/146852")
EXPECTED = ("LAYOUT_NOT_TRANSPOSED",)
STEPS = 250
WIDTH, GESTURE, BATCH = 64, 12, 64


def gestures(rng, n, templates):
    """n windows in the CSV layout (n, WIDTH, CHANNELS) and their gesture labels."""
    y = rng.integers(0, CLASSES, n)
    x = 0.5 * rng.standard_normal((n, WIDTH, CHANNELS))
    at = rng.integers(0, WIDTH - GESTURE + 1, n)
    for i in range(n):
        x[i, at[i]:at[i] + GESTURE] += templates[y[i]]
    return torch.from_numpy(x.astype(np.float32)), torch.from_numpy(y)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    t = np.linspace(0, 1, GESTURE)[:, None]
    templates = np.sin(2 * np.pi * (t * rng.uniform(0.5, 2.0, (CLASSES, 1, CHANNELS))
                                    + rng.uniform(0, 1, (CLASSES, 1, CHANNELS))))
    x_train, y_train = gestures(rng, 2000, templates)
    x_test, y_test = gestures(rng, 1000, templates)
    if fixed:
        x_train, x_test = x_train.permute(0, 2, 1), x_test.permute(0, 2, 1)
        model = ConvNet(channels=CHANNELS)
    else:
        model = ConvNet(channels=WIDTH)    # BUG: time steps as channels, sliding over axes
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            rows = torch.randint(0, len(x_train), (BATCH,))
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x_train[rows]), y_train[rows])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, x_test, y_test)
    return mon
