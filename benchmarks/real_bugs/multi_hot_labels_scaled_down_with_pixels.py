"""A multi-label tagger whose label blobs go through the same input scaling as the images:
the data layer multiplies whatever it reads by ``scale: 0.00390625`` (1/256), which turns
uint8 pixels into [0, 1] and is why the tool's instructions say to store the labels times
255. Stored as plain 0/1 multi-hot rows, the labels arrive as 0 and 0.0039: valid soft
targets for a sigmoid cross-entropy, so nothing complains, and the tagger learns that
every label has probability 0.004 - the loss falls to a small value and no label is ever
predicted.

Reported: "why label sholud be [0 255]" -
https://github.com/sukritshankar/Caffe-LMDBCreation-MultiLabel/issues/8 (a user with 4
classes labelled 0/1 asked why the labels must be in [0, 255]; the author: "Data layer in
Caffe automatically scales down by a factor of 255. Thats why labels should be in the
scale of [0, 255], so that after scaling, you should have proper values between 0 and 1";
a commenter pointed at the ``scale`` line of the repository's training prototxt that does
it, and that 0/1 labels work once that line is removed). Here 2x2 digit collages stored as
uint8, 10 labels "digit d appears" (benchmarks/real_bugs/_mlc185.py), an MLP tagger, SGD
with momentum, both blobs read through one ``scale`` of 1/256. Fix: store the labels times
255, as the tool's instructions say, so that they arrive as 0 and 0.996.

Measured (400 steps, 1,000 held-out collages, a label predicted when its probability is
above 0.5): seed 0, held-out micro-F1 0.00 for the bug (no label predicted, recall 0.00)
against 0.76 for the fixed twin; seeds shifted by 1000, 0.00 against 0.74.
"""
import numpy as np
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._mlc185 import (collages, digits_present, f1_scores,
                                           index_batches, recall, tagger)

TITLE = "why label sholud be [0 255]"
LINK = "https://github.com/sukritshankar/Caffe-LMDBCreation-MultiLabel/issues/8"
EXPECTED = ("BINARY_TARGETS_SCALED_DOWN",)
STEPS = 400
SCALE = 0.00390625          # the data layer's transform_param scale, 1/256 as in Caffe


def stored(x, y, fixed):
    """What the databases hold: uint8 pixels, and label rows 0/1 (or 0/255, as told)."""
    pixels = torch.round(x * 255).to(torch.uint8)
    labels = y * 255 if fixed else y
    return pixels, labels


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x, cells = collages(3000, rng)
    y = digits_present(cells)
    x_test, cells_test = collages(1000, rng, held_out=True)
    y_test = digits_present(cells_test)
    pixels, labels = stored(x, y, fixed)
    model = tagger(y.shape[1])
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    with nd.watch(model, optimizer, **watch) as mon:
        for rows in index_batches(len(x), steps, 64, rng):
            data = pixels[rows].float() * SCALE         # the data layer's scale ...
            target = labels[rows].float() * SCALE       # ... on the label blob as well
            loss = F.binary_cross_entropy_with_logits(model(data), target)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        predicted = torch.sigmoid(model(torch.round(x_test * 255) * SCALE)) > 0.5
    mon.held_out_micro_f1, mon.held_out_macro_f1 = f1_scores(predicted, y_test)
    mon.held_out_recall = recall(predicted, y_test)
    return mon
