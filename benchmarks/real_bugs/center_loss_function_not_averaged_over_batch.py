"""A center loss written as a custom ``autograd.Function`` whose forward sums the squared
distances of the batch's features to their class centers and whose backward returns the
matching per-sample gradient, neither divided by the batch size. The cross-entropy beside
it is a batch mean, so the center term weighs batch-size times (64x here) what its weight
says: it pulls the features onto their centers harder than the classifier can separate
them, and the classification loss stays high.

Reported: "gradient needs to be divided by batch size" -
https://github.com/jxgu1016/MNIST_center_loss_pytorch/issues/9 (the reporter divides the
forward's sum and the backward's ``- grad_output * diff`` by ``feature.size()[0]`` and shows
the better-separated features; the author: "May be your are right... The same operation is
also in other loss function like cross_entropy_loss"). Here the repository's setting on the
8x8 digits: an MLP to 2-D features, a linear classifier on them, cross-entropy plus 0.1 x
center loss, the centers updated by their own SGD from the Function's center gradient (the
mean offset per class). Fix: divide the forward and the backward by the batch size. (Scored first with
BATCH_SUMMED_INSIDE_LOSS as the cause: that code is a saturating function applied to a
batch's sum; the code of this cause, a term summed over the batch added to a term averaged
over it, is LOSS_TERMS_REDUCED_DIFFERENTLY. Missed under either.)

Measured (300 steps, SGD 0.05 momentum 0.9): the bug's loss 6.9 at the first step, 1.04
over the last 10; the fixed twin's 2.4, then 0.41. In a standalone copy at seeds 0 and 1:
training accuracy 0.943 and 0.912 against 0.948 and 0.936, the features squeezed to a mean
norm of 1.07 against 3.9.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "gradient needs to be divided by batch size"
LINK = "https://github.com/jxgu1016/MNIST_center_loss_pytorch/issues/9"
EXPECTED = ("LOSS_TERMS_REDUCED_DIFFERENTLY",)
STEPS = 300
CENTER_WEIGHT = 0.1


class CenterLossFunction(torch.autograd.Function):
    """0.5 x squared distance of each feature to its class's center, summed (or averaged)
    over the batch; the centers' gradient is the mean offset per class (the paper's rule)."""

    @staticmethod
    def forward(ctx, features, labels, centers, averaged):
        ctx.save_for_backward(features, labels, centers)
        ctx.averaged = averaged
        offsets = features - centers.index_select(0, labels)
        total = offsets.pow(2).sum() / 2.0
        return total / features.size(0) if averaged else total   # BUG when not averaged

    @staticmethod
    def backward(ctx, grad_output):
        features, labels, centers = ctx.saved_tensors
        offsets = centers.index_select(0, labels) - features
        counts = torch.ones(centers.size(0)).index_add_(0, labels, torch.ones(len(labels)))
        grad_centers = torch.zeros_like(centers).index_add_(0, labels, offsets)
        grad_centers = grad_centers / counts[:, None]
        grad_features = -grad_output * offsets
        if ctx.averaged:
            grad_features = grad_features / features.size(0)
        return grad_features, None, grad_centers, None


class CenterLossNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 2))
        self.classifier = nn.Linear(2, 10)

    def forward(self, x):
        features = self.features(x)
        return features, self.classifier(features)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = CenterLossNet()
    centers = nn.Parameter(torch.randn(10, 2))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    center_optimizer = torch.optim.SGD([centers], lr=0.5)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            features, logits = model(xb)
            loss = (nn.functional.cross_entropy(logits, yb) + CENTER_WEIGHT
                    * CenterLossFunction.apply(features, yb, centers, fixed))
            optimizer.zero_grad()
            center_optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            center_optimizer.step()
            mon.step(loss)
    return mon
