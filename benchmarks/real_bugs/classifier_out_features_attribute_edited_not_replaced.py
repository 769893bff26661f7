"""The pretrained classifier's last layer "resized" for the new task by assigning its
``out_features`` attribute (``model.classifier[2].out_features = 3``) instead of replacing
the layer. The attribute only changes what the module prints: its weight and bias keep the
source task's rows, so the model still emits one logit per SOURCE class, the cross-entropy
is taken over all of them, and the new labels 0-2 are scored against logits pretrained to
mean other things. Nothing errors; the loss starts high and the head has to unlearn its old
rows first.

Reported: "Transfer learning: reduced performance when updating `out_features` directly" -
https://discuss.pytorch.org/t/transfer-learning-reduced-performance-when-updating-out-features-directly/170534
(EfficientNet-B0 with frozen features; ``model.classifier[1].out_features = 3`` prints the
same as a new ``nn.Linear(1280, 3)`` but trains far worse: test accuracy 0.35 against 0.87
after a few epochs).

Here the batch-246 VGG-style model (``_beginner_transfer``: pretrained on digits 0-4, a
five-way head) gets its features frozen and is fine-tuned on a three-way task on other digits
(is the digit 5, 6 or 7?  rows of other digits dropped) with Adam at 1e-3 over the classifier.
Fix: replace the layer, ``model.classifier[2] = nn.Linear(64, 3)``.

Measured (the held-out rows of digits 5-7): seed 0, held-out accuracy 0.84 for the bug
against 0.98 for the fixed twin; seeds shifted by 1000, 0.87 against 0.92.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._beginner_transfer import (accuracy, batches, pretrained_vggish,
                                                     target_task, torch_preprocess)

TITLE = "Transfer learning: reduced performance when updating `out_features` directly"
LINK = ("https://discuss.pytorch.org/t/transfer-learning-reduced-performance-when-updating-"
        "out-features-directly/170534")
EXPECTED = ("OUTPUT_WIDER_THAN_CLASSES",)
STEPS = 150
LR = 1e-3
NEW_CLASSES = (5, 6, 7)


def three_way(x, y):
    keep = (y >= NEW_CLASSES[0]) & (y <= NEW_CLASSES[-1])
    return x[keep], y[keep] - NEW_CLASSES[0]


def run(fixed=False, steps=STEPS, **watch):
    model, stats = pretrained_vggish()
    (x, y), (x_held, y_held) = target_task()
    x, y = three_way(torch_preprocess(x, stats), y)
    x_held, y_held = three_way(torch_preprocess(x_held, stats), y_held)
    torch.manual_seed(0)
    for param in model.features.parameters():
        param.requires_grad = False
    if fixed:
        model.classifier[2] = nn.Linear(model.classifier[2].in_features, len(NEW_CLASSES))
    else:
        model.classifier[2].out_features = len(NEW_CLASSES)   # BUG: the weight keeps 5 rows
    model.train()
    optimizer = torch.optim.Adam(model.classifier.parameters(), lr=LR)
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
