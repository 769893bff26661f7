"""After freezing the whole pretrained VGG, the script unfreezes the classifier's hidden layer
by index and picks the wrong one: ``model.classifier[1]`` is the ReLU, which has no
parameters, so the pretrained Linear at ``classifier[0]`` stays frozen and only the new
output layer trains. The hidden layer keeps the source task's projection, which the target
task cannot reshape. Nothing errors, the loss falls.

Reported: "Pre-train notebook sets requires_grad = True for ReLU rather than the Linear
layer." - https://github.com/rasbt/stat453-deep-learning-ss21/pull/3 ("It should be
Model.classifier[0].requires_grad = True because the layer at index 0 is the linear layer.
Index 1 is the ReLU layer which does not have trainable parameters."; the reporter retrained
the notebook's VGG with the index fixed and found the training accuracy slightly higher).

Here the batch-246 VGG-style model (``_beginner_transfer``: pretrained on digits 0-4, its
classifier Linear(64, 64) - ReLU - Linear) is frozen, its output layer replaced by a new
ten-way Linear, and ``classifier[1]``'s parameters (none) set trainable; Adam (lr 1e-3) over
the trainable parameters, 500 other colour digits. Fix: unfreeze ``classifier[0]``.

Measured (297 held-out digits): seed 0, held-out accuracy 0.63 for the bug against 0.76 for
the fixed twin; seeds shifted by 1000, 0.65 against 0.76.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._beginner_transfer import (accuracy, batches, pretrained_vggish,
                                                     target_task, torch_preprocess)

TITLE = "Pre-train notebook sets requires_grad = True for ReLU rather than the Linear layer."
LINK = "https://github.com/rasbt/stat453-deep-learning-ss21/pull/3"
EXPECTED = ("FROZEN_PARAMETERS",)
STEPS = 150
LR = 1e-3


def run(fixed=False, steps=STEPS, **watch):
    model, stats = pretrained_vggish()
    (x, y), (x_held, y_held) = target_task()
    x, x_held = torch_preprocess(x, stats), torch_preprocess(x_held, stats)
    torch.manual_seed(0)
    for param in model.parameters():
        param.requires_grad = False
    hidden = 0 if fixed else 1                        # BUG: index 1 is the ReLU
    for param in model.classifier[hidden].parameters():
        param.requires_grad = True
    model.classifier[2] = nn.Linear(model.classifier[2].in_features, 10)
    model.train()
    optimizer = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=LR)
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
