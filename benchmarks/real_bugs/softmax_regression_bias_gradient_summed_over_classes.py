"""Softmax regression written from scratch with its gradients derived by hand: the bias
gradient is ``-torch.sum(y_onehot - probas)``, one sum over the batch AND the classes, so
every class's bias gets the same (and, since each row of y - p sums to zero, a near-zero)
update. The biases stay equal, which a softmax ignores: the model is a softmax regression
with no bias at all, every class boundary forced through the origin. A class lying
between two others on a line through the origin can then hardly be predicted.

Reported: "Small error in bias-computation in L08/code/softmax-regression_scratch.ipynb" -
https://github.com/rasbt/stat453-deep-learning-ss21/issues/5 (the scratch softmax
regression's training "gives the same weight for all bias terms"; the fix sums over the
batch axis only, ``torch.sum(y - probas, dim=0)``). Here the notebook's setting: three
Iris-like classes in two standardised features (three Gaussian blobs, the middle class
between the others), weights and biases updated by hand every step from the hand-derived
gradients of the cross-entropy (no autograd), full-batch, lr 0.1. Fix: the bias gradient
summed over the batch axis only.

Measured (held-out accuracy on 600 fresh points after 300 steps): 0.708 with the bug,
0.992 fixed; seeds + 1000: 0.745 vs 0.988.
"""
import torch
from torch import nn

import nndebug as nd

TITLE = "Small error in bias-computation in L08/code/softmax-regression_scratch.ipynb"
LINK = "https://github.com/rasbt/stat453-deep-learning-ss21/issues/5"
EXPECTED = ("BACKWARD_MISMATCH", "PARAMS_NOT_UPDATING")
STEPS = 300
LR = 0.1
CENTRES = torch.tensor([[1.5, 0.5], [4.0, 1.3], [5.5, 2.0]])   # petal length, width-like


class SoftmaxRegression(nn.Module):
    """The notebook's model: weights (classes, features) and biases, trained without autograd."""

    def __init__(self, features=2, classes=3):
        super().__init__()
        self.weight = nn.Parameter(torch.zeros(classes, features), requires_grad=False)
        self.bias = nn.Parameter(torch.zeros(classes), requires_grad=False)

    def forward(self, x):
        return torch.softmax(x.mm(self.weight.t()) + self.bias, dim=1)

    def backward(self, x, y_onehot, probas, fixed):
        grad_w = -(y_onehot - probas).t().mm(x)
        if fixed:
            grad_b = -torch.sum(y_onehot - probas, dim=0)
        else:                                  # BUG: one sum over batch and classes
            grad_b = -torch.sum(y_onehot - probas)
        return grad_w, grad_b


def blobs(per_class):
    y = torch.arange(3).repeat_interleave(per_class)
    x = CENTRES[y] + torch.randn(len(y), 2) * torch.tensor([0.45, 0.2])
    return x, y


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(123)
    x, y = blobs(50)
    x_held, y_held = blobs(200)
    mean, std = x.mean(0), x.std(0)
    x, x_held = (x - mean) / std, (x_held - mean) / std
    y_onehot = torch.nn.functional.one_hot(y, 3).float()
    model = SoftmaxRegression()
    with nd.watch(model, **watch) as mon:     # no optimizer: the loop updates the weights
        for _ in range(steps):
            probas = model(x)
            loss = -(y_onehot * torch.log(probas)).sum(1).mean()
            grad_w, grad_b = model.backward(x, y_onehot, probas, fixed)
            model.weight -= LR * grad_w / len(y)
            model.bias -= LR * grad_b / len(y)
            mon.step(loss)
    mon.held_out_accuracy = float((model(x_held).argmax(1) == y_held).float().mean())
    return mon
