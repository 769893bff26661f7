"""A TabNet configured with ``feature_dim`` equal to ``output_dim``: each step's feature
transformer gives ``feature_dim`` units, the first ``output_dim`` go to the decision and the
rest - none - to the next attentive transformer. The slice ``h[:, output_dim:]`` is an empty
(batch, 0) tensor, which torch (like the TensorFlow of the report) passes on without a word:
the attentive Linear(0, features) returns its bias, the same row for every sample, so each
step's sparsemax mask is one global mask learnt through BatchNorm's shift - no
instance-wise feature selection at all. In training the BatchNorm of that constant returns
its shift exactly; in eval mode its running variance is ~0 and the mask it gives is a
different one, so the held-out predictions collapse while the training loss looks better
than the healthy model's.

Reported: "[Maybe an issue?] No inter-sample variation of per-step attention masks" -
https://github.com/titu1994/tf-TabNet/issues/9 (the maintainer: "Older TF were silently
allowing a [Batchsize, 0] ... tensor as output of" the split step, which "silently remained
as a bug"; the suggested settings use feature_dim=8 with output_dim=4). Here a 3-step TabNet
(GLU feature transformers, attentive transformer = Linear + BatchNorm + prior-scaled
sparsemax over the 64 pixels, relaxation 1.3) on the 8x8 digits (1,500 to train, 297 held
out), feature_dim = output_dim = 16; Adam 2e-2, 200 steps of 64.

Fix: feature_dim larger than output_dim (32 and 16), so the attentive transformer reads 16
units of each sample's own features.

Measured (held-out accuracy on 297 digits, eval mode): 0.364 with the bug, 0.899 fixed;
seeds + 1000: 0.219 vs 0.939.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification
from benchmarks.real_bugs._tabtf347 import FeatureTransformer, Sparsemax

TITLE = "[Maybe an issue?] No inter-sample variation of per-step attention masks"
LINK = "https://github.com/titu1994/tf-TabNet/issues/9"
EXPECTED = ("COLLAPSED_ACTIVATIONS",)
STEPS = 200


class TabNet(nn.Module):
    def __init__(self, feature_dim, output_dim, inputs=64, steps=3, classes=10,
                 relaxation=1.3):
        super().__init__()
        self.output_dim, self.relaxation = output_dim, relaxation
        self.input_bn = nn.BatchNorm1d(inputs)
        self.initial = FeatureTransformer(inputs, feature_dim)
        self.attentive = nn.ModuleList(     # BUG when feature_dim == output_dim: Linear(0, 64)
            nn.Sequential(nn.Linear(feature_dim - output_dim, inputs), nn.BatchNorm1d(inputs))
            for _ in range(steps))
        self.transformers = nn.ModuleList(FeatureTransformer(inputs, feature_dim)
                                          for _ in range(steps))
        self.head = nn.Linear(output_dim, classes)

    def forward(self, x):
        x = self.input_bn(x)
        a = self.initial(x)[:, self.output_dim:]
        prior = torch.ones_like(x)
        decision = 0
        for attentive, transformer in zip(self.attentive, self.transformers):
            mask = Sparsemax.apply(prior * attentive(a), True)
            prior = prior * (self.relaxation - mask)
            h = transformer(mask * x)
            decision = decision + F.relu(h[:, :self.output_dim])
            a = h[:, self.output_dim:]
        return self.head(decision)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    order = torch.randperm(len(x))
    train, held = order[:1500], order[1500:]
    model = TabNet(feature_dim=32 if fixed else 16, output_dim=16)
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
