"""A focal loss written as ``-(1 - p_t) ** gamma * log p_t`` with a gamma below 1. Once the
classifier is confident enough that a sample's probability p_t rounds to exactly 1.0 in
float32 (a logit gap of about 17), ``1 - p_t`` is 0: the loss term is finite (0 x 0), but
the derivative of x ** 0.5 at 0 is infinite, 0 x inf is NaN, and that NaN reaches every
weight.

Reported: "NaN gradients on backward pass with focal loss" -
https://github.com/kornia/kornia/issues/918 (NaN gradients "when torch.sig(prediction)
equals 1. or 0. and 0.<gamma<1."; "nan occurs during computation of gradients with
respect to torch.pow()"; "This probably does also concern the focal loss implementation";
the suggested fix puts an eps inside the pow). Here the multi-class form on the 8x8
digits, gamma = 0.5, Adam at 1e-2. Fix: ``(1 - p_t).clamp_min(eps) ** gamma``.

Measured (800 steps, 297 held-out digits): the bug's loss is 0.005 at step 497, its
gradients NaN there, its loss NaN from step 498 on, held-out accuracy 0.09; the fixed twin
trains all 800 steps (loss 2.21 -> 0.002), held-out accuracy 0.92.
"""
import torch
from torch.nn import functional as F

from benchmarks.real_bugs._common import batches, classification, mlp, train_watched

TITLE = "NaN gradients on backward pass with focal loss"
LINK = "https://github.com/kornia/kornia/issues/918"
EXPECTED = ("NAN_BORN_IN_BACKWARD",)
STEPS = 800
HELD_OUT = 297
GAMMA = 0.5
EPS = 1e-6


def focal_loss(fixed):
    def loss(logits, labels):
        log_pt = F.log_softmax(logits, 1).gather(1, labels[:, None]).squeeze(1)
        remaining = 1 - log_pt.exp()
        if fixed:
            remaining = remaining.clamp_min(EPS)
        return (-remaining.pow(GAMMA) * log_pt).mean()   # BUG: d/dx x ** 0.5 at x = 0
    return loss


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    mon = train_watched(model, optimizer, focal_loss(fixed),
                        batches(x[:-HELD_OUT], y[:-HELD_OUT], steps), **watch)
    with torch.no_grad():
        predicted = model(x[-HELD_OUT:]).argmax(1)
    mon.test_accuracy = round(float((predicted == y[-HELD_OUT:]).float().mean()), 3)
    return mon
