"""A linear evaluation of a self-supervised encoder "freezes" the encoder with
``model.enc.requires_grad = False``: that sets a plain Python attribute on the Module and
touches none of its parameters, so every encoder weight still requires grad, is handed to
the optimizer and is fine-tuned on the labels. The number reported as linear-probe
accuracy is a fine-tuning accuracy, and the pre-trained features it was meant to measure
are overwritten at the probe's high learning rate.

Reported: "Possible bugs in simclr_lin.py" - https://github.com/p3i0t/SimCLR-CIFAR10/issues/1
("model.enc.requires_grad = False ... The first assignment seems to be useless, you could
check the parameter length"; "in your code, actually you finetune the whole network").
Here a digits MLP encoder is pre-trained with NT-Xent for 150 steps (outside the watch),
then a linear classifier on its features is trained on 200 labelled digits with SGD at a
linear probe's learning rate; accuracy is read on 897 held-out digits.
Fix: ``for p in model.enc.parameters(): p.requires_grad = False`` (or
``model.enc.requires_grad_(False)``) and give the optimizer only the classifier's
parameters.

Measured (seed 0): the encoder moves by 25.4 (sum of its parameters' distance from the
pre-trained weights) in the bug run, 0 in the twin; the reported "linear probe" accuracy
is 0.845 against the real probe's 0.738 - the number overstates the frozen features by
0.11 and is not the evaluation it claims to be.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification
from benchmarks.real_bugs._ssl_digits import PROBE_SPLIT, encoder, nt_xent, view

TITLE = "Possible bugs in simclr_lin.py"
LINK = "https://github.com/p3i0t/SimCLR-CIFAR10/issues/1"
EXPECTED = ("REQUIRES_GRAD_SET_ON_MODULE",)
PRETRAIN_STEPS = 150
STEPS = 150
LABELLED = 200


class LinearEval(torch.nn.Module):
    def __init__(self, enc):
        super().__init__()
        self.enc = enc
        self.fc = torch.nn.Linear(32, 10)

    def forward(self, x):
        return self.fc(F.normalize(self.enc(x), dim=1))


def pretrain(x, y):
    enc = encoder()
    optimizer = torch.optim.Adam(enc.parameters(), lr=1e-3)
    for xb, _ in batches(x, y, PRETRAIN_STEPS):
        optimizer.zero_grad()
        nt_xent(enc(view(xb)), enc(view(xb))).backward()
        optimizer.step()
    return enc


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = LinearEval(pretrain(x, y))
    if fixed:
        model.enc.requires_grad_(False)
    else:
        model.enc.requires_grad = False     # BUG: an attribute; the weights still train
    start = [p.detach().clone() for p in model.enc.parameters()]
    parameters = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.SGD(parameters, lr=1.0, momentum=0.9)
    xl, yl = x[:LABELLED], y[:LABELLED]
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(xl, yl, steps, batch_size=50):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        accuracy = (model(x[PROBE_SPLIT:]).argmax(1) == y[PROBE_SPLIT:]).float().mean()
    moved = sum(float((p - s).norm()) for p, s in zip(model.enc.parameters(), start))
    mon.extra = {"held_out_accuracy": round(float(accuracy), 3),
                 "encoder_moved": round(moved, 3)}
    return mon
