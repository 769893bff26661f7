"""Sensor windows for activity recognition cut with Keras' ``TimeseriesGenerator``
convention: the window data[i - length:i] is paired with targets[i], the activity at the
step AFTER the window, instead of the activity the window holds. Wherever an activity
changes near a window's end, the window is trained on the next activity's label, so a
good share of the training labels name an activity the window never shows; the loss
still falls (it fits the windows that are labelled right and memorises the rest).

Reported: "TimeseriesGenerator for labeled time-series such as sensor data" -
https://github.com/tensorflow/tensorflow/issues/33566 ("the target (label) for a
time-window is chosen to be the last observed label ... if I use this method in training
(e.g. for an activity recognition method based on accelerometer time-series)" the windows
that straddle a change get a "Bad label!"; the reporter asks for the label of the window's
own content). Here a 3-axis recording of four activities in segments of 32-96 samples,
windows of 64 samples with stride 16, a two-layer 1-D CNN; held-out windows from a second
recording are scored against the activity that fills most of each window.
Fix: label each window by the activity filling most of it.

Measured harm (held-out window accuracy): 0.785 vs 0.878 for the fixed twin;
seeds + 1000: 0.797 vs 0.850.
"""
import numpy as np
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._sensor_cnn import ConvNet, accuracy, activity_stream, windows

TITLE = "TimeseriesGenerator for labeled time-series such as sensor data"
LINK = "https://github.com/tensorflow/tensorflow/issues/33566"
EXPECTED = ("LABELS_MISALIGNED",)
STEPS = 250
WIDTH, STRIDE, BATCH = 64, 16, 64


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x, labels = activity_stream(rng, 12000)
    x_test, labels_test = activity_stream(rng, 4000)
    # BUG: the window data[i - 64:i] takes targets[i], the step after the window
    x_train, y_train = windows(x, labels, WIDTH, STRIDE, label="mode" if fixed else "next")
    x_held, y_held = windows(x_test, labels_test, WIDTH, STRIDE, label="mode")
    model = ConvNet()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            rows = torch.randint(0, len(x_train), (BATCH,))
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x_train[rows]), y_train[rows])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, x_held, y_held)
    return mon
