"""A hand-written batch-norm layer that computes its new running averages every training
call and keeps them as a list of pending updates - which the training loop never applies.
The averages stay at their start, mean 0 and variance 1, for the whole run: training
normalises every batch with its own statistics and learns well, while the test pass
(``deterministic``/eval mode) normalises with 0 and 1, that is not at all, and the
network's held-out accuracy collapses.

Reported: "nn.batch_norm" - https://github.com/openai/improved-gan/issues/17 ("the
generator uses nn.batch_norm, but it seems your implementation self.bn_updates =
[(self.avg_batch_mean, new_m), (self.avg_batch_var, new_v)] is not updated in the
train_mnist_feature_matching.py ... I print the avg_batch_mean values, they are always 0
and the avg_batch_var values are always 1. That means the batch normalization in your code
does not normalize inputs when testing"). Here the same layer (pending ``bn_updates``,
applied only by an ``apply_updates()`` call the script leaves out) after each hidden layer
of a digits MLP (pixels in [0, 1]), SGD lr 0.05 momentum 0.9,
batches of 64, evaluation on 400 held-out digits in eval mode. Fix: apply the updates after
every training step (or use ``nn.BatchNorm1d``).

Measured (held-out accuracy, eval mode, bug vs fixed): seed 0: 0.637 vs 0.983;
seeds + 1000: 0.72 vs 0.978.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._bnd import accuracy, split_digits
from benchmarks.real_bugs._common import batches

TITLE = "nn.batch_norm"
LINK = "https://github.com/openai/improved-gan/issues/17"
EXPECTED = ("BATCHNORM_STATISTICS_FROZEN",)
STEPS = 200


class BatchNorm(nn.Module):
    """improved-gan's batch_norm: normalise with the batch's statistics while training,
    with the averaged ones when deterministic; new averages are only queued."""

    def __init__(self, features, momentum=0.1, eps=1e-4):
        super().__init__()
        self.gamma = nn.Parameter(torch.ones(features))
        self.beta = nn.Parameter(torch.zeros(features))
        self.register_buffer("avg_batch_mean", torch.zeros(features))
        self.register_buffer("avg_batch_var", torch.ones(features))
        self.momentum, self.eps = momentum, eps
        self.bn_updates = []

    def forward(self, x):
        if self.training:
            mean, var = x.mean(0), x.var(0, unbiased=False)
            new_m = (1 - self.momentum) * self.avg_batch_mean + self.momentum * mean.detach()
            new_v = (1 - self.momentum) * self.avg_batch_var + self.momentum * var.detach()
            self.bn_updates = [(self.avg_batch_mean, new_m), (self.avg_batch_var, new_v)]
        else:
            mean, var = self.avg_batch_mean, self.avg_batch_var
        return self.gamma * (x - mean) / torch.sqrt(var + self.eps) + self.beta

    def apply_updates(self):
        for buffer, value in self.bn_updates:
            buffer.copy_(value)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_test, y_test = split_digits()
    model = nn.Sequential(nn.Linear(64, 128), BatchNorm(128), nn.ReLU(),
                          nn.Linear(128, 64), BatchNorm(64), nn.ReLU(), nn.Linear(64, 10))
    norms = [m for m in model if isinstance(m, BatchNorm)]
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps, batch_size=64):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            if fixed:
                with torch.no_grad():        # BUG when not fixed: the queued averages
                    for norm in norms:       # are never written into the buffers
                        norm.apply_updates()
            mon.step(loss)
        model.eval()
        with torch.no_grad():
            mon.held_out_accuracy = accuracy(model(x_test), y_test)
    return mon
