"""A pretrained backbone "frozen" by putting it in eval mode, while the optimizer is still
built from all the model's parameters. ``eval()`` only switches batch norm (and dropout) to
their inference behaviour; it does not stop gradients, and the optimizer steps every
parameter it holds. So the backbone that was meant to stay fixed is trained at the new
head's rate - and with its batch norm on frozen running statistics, which stop describing
its features as soon as its weights move. The loss falls and nothing errors; the head is
fitted to a backbone drifting away from its pretraining.

Reported: "Frozen Backbone Implementation" - https://github.com/alexrich021/3dvnet/issues/11
(the paper's frozen MnasNet backbone was "frozen" only by ``.eval()``; the reporter ran the
training script and found the backbone's weights still updating at every
``training_step()``; the author: "Great catch", the optimizer should be given only the
parameters meant to train). Fix: build the optimizer from the head's parameters only (the
backbone stays in eval mode, as before).

Here the batch-73 conv backbone (pretrained on 900 colour digits, batch norm, in
``_pretrained_cnn``) is put in eval mode at every step under a new ten-way head, and the
model is trained on 100 other digits with Adam at 0.01.

Measured (297 held-out digits): seed 0, held-out accuracy 0.68 for the bug against 0.89 for
the fixed twin; seeds shifted by 1000, 0.72 against 0.93.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._ft188 import (Classifier, accuracy, pretrained_backbone,
                                         target_task, torch_preprocess)

TITLE = "Frozen Backbone Implementation"
LINK = "https://github.com/alexrich021/3dvnet/issues/11"
EXPECTED = ("EVAL_MODE_MODULE_STILL_OPTIMIZED",)
STEPS = 150
LR = 0.01
TRAIN_ROWS = 100


def run(fixed=False, steps=STEPS, **watch):
    body, stats = pretrained_backbone("torch")
    (x, y), (x_held, y_held) = target_task(TRAIN_ROWS)
    x, x_held = torch_preprocess(x, stats), torch_preprocess(x_held, stats)
    torch.manual_seed(0)
    model = Classifier(body)
    # BUG (else): the "frozen" backbone's parameters are in the optimizer too
    params = model.head.parameters() if fixed else model.parameters()
    optimizer = torch.optim.Adam(params, lr=LR)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps, batch_size=32):
            model.train()
            model.backbone.eval()                  # the backbone is "frozen" this way
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
