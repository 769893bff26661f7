"""BinaryNet's copy trick with its first half left out: the binarized layer writes
``sign(weight.org)`` into ``weight.data`` in the forward pass and keeps the real-valued
weights in ``weight.org``; before ``optimizer.step()`` the loop must copy ``weight.org`` back
into ``weight.data`` so that the step lands on the real weights, and after it copy the clamped
result into ``weight.org``. Without the restore, the step is added to the +-1 values and the
clamp to [-1, 1] puts almost every weight straight back on +-1: an update of a learning rate
size can never flip a sign, so the binary weights stay the random signs they started with.

Reported: "what is the exact meaning of iterating in the parameters ?" -
https://github.com/itayhubara/BinaryNet.pytorch/issues/19 (the answer: the first loop makes
sure the gradient step is taken "on the real weight parameters" - before it the weights "are
actually binary" - and the second keeps the weights bounded in [-1, 1]). Here two binarized
linear layers of 32 units (batch norm after each) and a full-precision classifier on the 8x8
digits, Adam 1e-3, the loop of the repository with the restore loop removed.
Fix: ``p.data.copy_(p.org)`` for every binarized parameter before ``optimizer.step()``.

Measured (300 steps, Adam 1e-3): the bug's loss 2.37 at the first step, 1.07 over the last
10 (the binary weights keep their initial signs); the fixed twin's 0.30.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "what is the exact meaning of iterating in the parameters ?"
LINK = "https://github.com/itayhubara/BinaryNet.pytorch/issues/19"
EXPECTED = ("WEIGHTS_REQUANTIZED_IN_PLACE", "PARAMS_NOT_UPDATING")
STEPS = 300
WIDTH = 32


class BinarizeLinear(nn.Linear):
    """Forward with sign(real weights); the real weights live in ``weight.org``."""

    def forward(self, x):
        if not hasattr(self.weight, "org"):
            self.weight.org = self.weight.data.clone()
        self.weight.data = torch.where(self.weight.org >= 0, 1.0, -1.0)
        return nn.functional.linear(x, self.weight / self.in_features ** 0.5, self.bias)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = nn.Sequential(BinarizeLinear(64, WIDTH), nn.BatchNorm1d(WIDTH), nn.ReLU(),
                          BinarizeLinear(WIDTH, WIDTH), nn.BatchNorm1d(WIDTH), nn.ReLU(),
                          nn.Linear(WIDTH, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            if fixed:
                for p in model.parameters():
                    if hasattr(p, "org"):
                        p.data.copy_(p.org)
            # BUG (fixed=False): the restore above is missing
            optimizer.step()
            for p in model.parameters():
                if hasattr(p, "org"):
                    p.org.copy_(p.data.clamp_(-1, 1))
            mon.step(loss)
    return mon
