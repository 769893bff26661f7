"""A new classifier for a pretrained VGG built with ``nn.Softmax`` as its last layer (VGG
"must" end in a softmax, as the paper says), trained with ``nn.CrossEntropyLoss`` - which
applies log-softmax itself. The loss is then the cross-entropy of a softmax of
probabilities: every output lies in [0, 1], the loss cannot fall much below log(10) - 1,
and the gradients reaching the classifier shrink as soon as the probabilities commit. The
loss falls a little, slowly, and nothing errors.

Reported: "VGG output layer must be softmax" - https://github.com/pytorch/vision/issues/432
(a beginner proposes adding ``nn.Softmax()`` at the end of VGG's classifier; the maintainer:
"The softmax is not necessary in the main model, because we use a loss layer during training
called cross_entropy that combines the log soft max with the negative log likelihood").

Here the batch-246 VGG-style model (``_beginner_transfer``: pretrained on digits 0-4) gets its
features frozen and a new classifier Linear(64, 64) - ReLU - Linear(64, 10) - Softmax, trained
with Adam (lr 1e-3) and CrossEntropyLoss on 500 other colour digits. Fix: drop the Softmax
(apply it only at inference, if probabilities are wanted).

Measured (297 held-out digits): seed 0, held-out accuracy 0.71 for the bug against 0.78 for
the fixed twin; seeds shifted by 1000, 0.62 against 0.71.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._beginner_transfer import (accuracy, batches, pretrained_vggish,
                                                     target_task, torch_preprocess)

TITLE = "VGG output layer must be softmax"
LINK = "https://github.com/pytorch/vision/issues/432"
EXPECTED = ("DOUBLE_SOFTMAX",)
STEPS = 150
LR = 1e-3


def run(fixed=False, steps=STEPS, **watch):
    model, stats = pretrained_vggish()
    (x, y), (x_held, y_held) = target_task()
    x, x_held = torch_preprocess(x, stats), torch_preprocess(x_held, stats)
    torch.manual_seed(0)
    for param in model.features.parameters():
        param.requires_grad = False
    layers = [nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10)]
    if not fixed:
        layers.append(nn.Softmax(dim=1))              # BUG: CrossEntropyLoss adds its own
    model.classifier = nn.Sequential(*layers)
    model.train()
    optimizer = torch.optim.Adam(model.classifier.parameters(), lr=LR)
    criterion = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps, batch_size=32):
            optimizer.zero_grad()
            loss = criterion(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, x_held, y_held)
    return mon


if __name__ == "__main__":
    for fixed in (False, True):
        print("fixed" if fixed else "bug", run(fixed).held_out_accuracy)
