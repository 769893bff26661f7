"""Overlapping sliding windows (stride 8 over 64-sample windows) cut from one sensor
recording and only then divided with ``torch.utils.data.random_split``: nearly every
validation window has training windows that share seven eighths of its samples, and the
same activity bout with the same sensor offset. The validation accuracy then measures
recall of bouts the model has already seen, not recognition of a new recording: it
reports a model far better than it is, and it keeps rising while accuracy on new data
has stopped.

Reported: "Splitting Time Series data that has a Sliding Window" -
https://discuss.pytorch.org/t/splitting-time-series-data-that-has-a-sliding-window/177419
("applying a sliding window to augment the dataset ... can cause data to leak between your
training, validation and test sets - especially if you use PyTorch's built-in
random_split()"; the poster splits the series in contiguous blocks with a gap instead).
Here a 3-axis recording of four activities in bouts of 32-96 samples, each bout with its
own small sensor offset, a two-layer 1-D CNN validated every 25 steps.
Fix: split the recording in time (first 80% trains, last 20% validates) and cut the
windows of each part separately.

Measured harm (validation accuracy the run reports minus accuracy on a second, unseen
recording): +0.260 (0.738 vs 0.478) vs +0.020 (0.500 vs 0.480) for the fixed
twin; seeds + 1000: +0.293 (0.718 vs 0.425) vs +0.068 (0.444 vs 0.376). Accuracy on the
new recording itself is about the same (0.478 vs 0.480): the harm is the number the run
reports.
"""
import numpy as np
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._sensor_cnn import ConvNet, accuracy, activity_stream, windows

TITLE = "Splitting Time Series data that has a Sliding Window"
LINK = "https://discuss.pytorch.org/t/splitting-time-series-data-that-has-a-sliding-window/177419"
EXPECTED = ("VALIDATION_WINDOWS_OVERLAP_TRAINING",)
STEPS = 300
WIDTH, STRIDE, BATCH, VALIDATE_EVERY = 64, 8, 64, 25


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x, labels = activity_stream(rng, 6000, noise=1.2, bias=0.8)
    x_new, labels_new = activity_stream(rng, 4000, noise=1.2, bias=0.8)
    if fixed:
        cut = int(0.8 * x.shape[1])
        x_train, y_train = windows(x[:, :cut], labels[:cut], WIDTH, STRIDE)
        x_val, y_val = windows(x[:, cut:], labels[cut:], WIDTH, STRIDE)
    else:
        # BUG: windows cut from the whole recording, then split at random
        x_all, y_all = windows(x, labels, WIDTH, STRIDE)
        n_train = int(0.8 * len(x_all))
        train, val = torch.utils.data.random_split(
            torch.utils.data.TensorDataset(x_all, y_all), [n_train, len(x_all) - n_train])
        x_train, y_train = x_all[train.indices], y_all[train.indices]
        x_val, y_val = x_all[val.indices], y_all[val.indices]
    x_test, y_test = windows(x_new, labels_new, WIDTH, STRIDE)
    model = ConvNet(hidden=32)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for done in range(1, steps + 1):
            rows = torch.randint(0, len(x_train), (BATCH,))
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x_train[rows]), y_train[rows])
            loss.backward()
            optimizer.step()
            val_loss = None
            if done % VALIDATE_EVERY == 0:
                model.eval()
                with torch.no_grad():
                    val_loss = F.cross_entropy(model(x_val), y_val)
                model.train()
            mon.step(loss, val_loss=val_loss)
    mon.validation_accuracy = accuracy(model, x_val, y_val)
    mon.held_out_accuracy = accuracy(model, x_test, y_test)
    mon.overstatement = round(mon.validation_accuracy - mon.held_out_accuracy, 3)
    return mon
