"""A learning rate tuned for momentum in the dampened form - v = m v + (1 - m) g, the form
of Lua torch's optim.sgd (dampening defaulted to the momentum) and of PaddlePaddle's
``torch_momentum`` - reused with PyTorch's SGD, whose buffer is v = m v + g (dampening 0).
With m = 0.9 the buffer, and so every step, is 1 / (1 - m) = 10 times larger than the rate
was chosen for: the run thrashes at a rate ten times too high.

Reported: "How to use torch_momentum?" - https://github.com/PaddlePaddle/Paddle/issues/1002
(how to set the learning rate with ``torch_momentum`` against ``momentum``; the maintainer:
"If the learning rate is lr_momentum when use momentum method ..., then set the learning
rate to be 10 * lr_momentum when use torch_momentum", and for m = 0.9 "They are not the
same"). The same trap: pytorch/pytorch#1099 and torch/optim#163 on the two conventions.
Here a digits MLP with the rate 1.5, which trains it well in the dampened form.

Measured (200 steps, 297 held-out digits): the bug's held-out accuracy 0.19 and last-20
training loss 2.17 (2.13 at the start); the fixed twin (the same rate, dampening=0.9)
0.91 and 0.03.
Fix: divide the rate by 1 / (1 - momentum) when moving from the dampened form (lr 0.15
here), or keep the form it was tuned in (``dampening=momentum``).
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, mlp, train_watched

TITLE = "How to use torch_momentum?"
LINK = "https://github.com/PaddlePaddle/Paddle/issues/1002"
EXPECTED = ("LR_TOO_HIGH",)
STEPS = 200
TUNED_LR, MOMENTUM = 1.5, 0.9      # tuned with v = m v + (1 - m) g
HELD_OUT = 297


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    dampening = MOMENTUM if fixed else 0.0        # BUG: PyTorch's default form, same rate
    optimizer = torch.optim.SGD(model.parameters(), lr=TUNED_LR, momentum=MOMENTUM,
                                dampening=dampening)
    mon = train_watched(model, optimizer, nn.CrossEntropyLoss(),
                        batches(x[:-HELD_OUT], y[:-HELD_OUT], steps), **watch)
    model.eval()
    with torch.no_grad():
        predicted = model(x[-HELD_OUT:]).argmax(1)
    mon.test_accuracy = round(float((predicted == y[-HELD_OUT:]).float().mean()), 3)
    return mon
