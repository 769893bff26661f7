"""A backbone pretrained on inputs normalised by the pretraining set's channel means and
standard deviations, fine-tuned on pixels only divided by 255 (here: left in [0, 1]). Every
channel now arrives shifted and scaled unlike what the pretrained filters saw (here each
channel's standard deviation 2.7 to 8.8 times smaller than the 1 they were trained on, and
its mean 0.8 to 2.7 pretraining standard deviations off zero), so the first layers' responses and the batch-norm
statistics downstream no longer describe the features the backbone learned, and the
fine-tuning spends its steps relearning them - slowly, at the backbone's small rate. The
loss still falls and nothing errors.

Reported: "Original Centernet has normalization for input image" -
https://github.com/ifzhang/FairMOT/issues/87 (the DLA backbone loaded from the CenterNet
checkpoint "ctdet_coco_dla_2x" was trained on inputs normalised by mean and std, but
FairMOT's data pipeline only divided the image by 255; the author: "Yes! That's a problem.
To make it the same may get better results."). Fix: normalise as the checkpoint was
trained - subtract its channel means and divide by its standard deviations.

Here the batch-73 conv backbone (pretrained on 900 colour digits under the torch-style
recipe in ``_pretrained_cnn``) gets a new ten-way head and is fine-tuned on 100 other
digits with Adam, the head at 0.03 and the backbone at a hundredth of that.

Measured (297 held-out digits, each run scored under its own preprocessing): seed 0,
held-out accuracy 0.84 for the bug against 0.89 for the fixed twin; seeds shifted by 1000,
0.84 against 0.92.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._ft188 import (Classifier, accuracy, pretrained_backbone,
                                         target_task, torch_preprocess)

TITLE = "Original Centernet has normalization for input image"
LINK = "https://github.com/ifzhang/FairMOT/issues/87"
EXPECTED = ("INPUT_SCALE_UNLIKE_PRETRAINING",)
STEPS = 150
LR = 0.03
TRAIN_ROWS = 100


def run(fixed=False, steps=STEPS, **watch):
    body, stats = pretrained_backbone("torch")
    (x, y), (x_held, y_held) = target_task(TRAIN_ROWS)     # pixels in [0, 1]
    if fixed:
        x, x_held = torch_preprocess(x, stats), torch_preprocess(x_held, stats)
    # BUG (else): the [0, 1] pixels go in as they are, not normalised as in pretraining
    torch.manual_seed(0)
    model = Classifier(body).train()
    optimizer = torch.optim.Adam([{"params": model.backbone.parameters(), "lr": LR / 100},
                                  {"params": model.head.parameters(), "lr": LR}])
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps, batch_size=32):
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, x_held, y_held)
    return mon


if __name__ == "__main__":
    for fixed in (False, True):
        print("fixed" if fixed else "bug", run(fixed).held_out_accuracy)
