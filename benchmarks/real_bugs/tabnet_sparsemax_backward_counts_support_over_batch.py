"""A TabNet whose attentive masks come from a hand-written sparsemax (an
autograd.Function with its own backward) whose backward divides by the support size of
the WHOLE mini-batch instead of each sample's own. Sparsemax's Jacobian subtracts, on each
sample's support, the mean of the incoming gradient over that support; divided by the
batch's total support count, that mean shrinks about batch-size-fold, so the mask logits
get the raw gradient instead of its projection. The forward pass is exact (each mask still
sums to 1) and the loss falls; the masks are just trained along the wrong direction.

Reported: "Fix backprop with minibatch" -
https://github.com/gokceneraslan/SparseMax.torch/pull/3 ("For minbatch case, each sample
should have a different |S(Z)| value"; a user: with the old code the attention weights
"will divergence"); the module was later ported to PyTorch as sparsemax-pytorch). Here
a 3-step TabNet (GLU feature transformers, attentive transformer = Linear + BatchNorm +
prior-scaled sparsemax over the 64 pixel features, relaxation 1.3) classifying the 8x8
digits (1,500 to train, 297 held out); Adam 2e-2, 200 steps of 64.

The Function is ``_tabtf347.Sparsemax``; ``per_sample=False`` is the bug.

Fix: divide each sample's masked gradient sum by that sample's own support size.

Measured (held-out accuracy on 297 digits, eval mode): 0.707 with the bug, 0.882 fixed;
seeds + 1000: 0.697 vs 0.946.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification
from benchmarks.real_bugs._tabtf347 import FeatureTransformer, Sparsemax

TITLE = "Fix backprop with minibatch"
LINK = "https://github.com/gokceneraslan/SparseMax.torch/pull/3"
EXPECTED = ("BACKWARD_MISMATCH",)
STEPS = 200


class TabNet(nn.Module):
    def __init__(self, per_sample, inputs=64, n_d=16, n_a=16, steps=3, classes=10,
                 relaxation=1.3):
        super().__init__()
        self.per_sample, self.n_d, self.relaxation = per_sample, n_d, relaxation
        self.input_bn = nn.BatchNorm1d(inputs)
        self.initial = FeatureTransformer(inputs, n_d + n_a)
        self.attentive = nn.ModuleList(
            nn.Sequential(nn.Linear(n_a, inputs, bias=False), nn.BatchNorm1d(inputs))
            for _ in range(steps))
        self.transformers = nn.ModuleList(FeatureTransformer(inputs, n_d + n_a)
                                          for _ in range(steps))
        self.head = nn.Linear(n_d, classes)

    def forward(self, x):
        x = self.input_bn(x)
        a = self.initial(x)[:, self.n_d:]
        prior = torch.ones_like(x)
        decision = 0
        for attentive, transformer in zip(self.attentive, self.transformers):
            mask = Sparsemax.apply(prior * attentive(a), self.per_sample)
            prior = prior * (self.relaxation - mask)
            h = transformer(mask * x)
            decision = decision + F.relu(h[:, :self.n_d])
            a = h[:, self.n_d:]
        return self.head(decision)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    order = torch.randperm(len(x))
    train, held = order[:1500], order[1500:]
    model = TabNet(per_sample=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-2)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x[train], y[train], steps, seed=0):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        mon.held_out_accuracy = (model(x[held]).argmax(1) == y[held]).float().mean().item()
    return mon
