"""The training generator z-scores every image with the training set's mean and standard
deviation, but the prediction/evaluation code feeds the raw intensities: the model never
sees the inputs it was trained on, and its held-out predictions collapse onto a few
classes. Training itself looks healthy.

Reported: "Input Images that are fed into the model during prediction aren't normalized?"
- https://github.com/jchen42703/kits19-cnn/issues/22 ("The model sees z-score standardized
images during training, but not during evaluation. I think this should be fixed.", labelled
bug, urgent; fixed). Here the 8x8 digits as raw 8-bit intensities (0..255), a small CNN
trained with Adam lr 1e-3 on (x - mean) / std (the training set's statistics), and a
held-out evaluation pass every 50 steps and at the end that feeds the raw intensities.
Fix: standardise the held-out images with the same training statistics.

Measured (held-out accuracy at the last evaluation pass, bug vs fixed): seed 0: 0.887 vs
0.945; seeds + 1000: 0.772 vs 0.923.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._prep import accuracy, first_cnn, raw_digits

TITLE = "Input Images that are fed into the model during prediction aren't normalized?"
LINK = "https://github.com/jchen42703/kits19-cnn/issues/22"
EXPECTED = ("VALIDATION_INPUTS_RESCALED",)
STEPS = 200
EVAL_EVERY = 50


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_test, y_test = raw_digits(images=True)
    mean, std = x.mean(), x.std()
    x = (x - mean) / std
    if fixed:
        x_test = (x_test - mean) / std       # BUG when not fixed: raw intensities at test
    model = first_cnn()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for step, (xb, yb) in enumerate(batches(x, y, steps, batch_size=32), 1):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
            if step % EVAL_EVERY == 0:
                mon.held_out_accuracy = accuracy(model, x_test, y_test)
    return mon
