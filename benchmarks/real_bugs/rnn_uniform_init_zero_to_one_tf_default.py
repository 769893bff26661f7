"""Recurrent weights initialised with a bare ``uniform`` initialiser, whose default range in
TensorFlow (``tf.random_uniform``) and in PyTorch (``nn.init.uniform_``) is [0, 1), not the
small symmetric range the Keras examples imply: every weight is positive and about 0.5, the
GRU's gates and tanh candidate saturate from the first step, and the network barely learns.

Reported: "Tensorflow init params changed" -
https://github.com/ilkarman/DeepLearningFrameworks/pull/31 (a repository that writes the
same models in every framework; the PR changes the TensorFlow RNN's initialisation
"following traveller59's 'default range of tf.random_uniform is [0, 1], it's still too large
for RNN, [-0.1, 0.1] is recommended'"). Here the digits read
row by row (8 steps of 8 pixels) by a GRU of 64 units and a Linear head, every GRU weight
initialised with ``nn.init.uniform_`` at its default range, Adam, batches of 64. Fix:
``nn.init.uniform_(w, -0.1, 0.1)``.

Measured (held-out accuracy, 360 digits, 200 steps): 0.42 vs 0.83; seeds + 1000: 0.40 vs
0.83.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._keras_ports import digits_split

TITLE = "Tensorflow init params changed"
LINK = "https://github.com/ilkarman/DeepLearningFrameworks/pull/31"
EXPECTED = ("SATURATED_ACTIVATIONS", "INIT_SCALE_TOO_LARGE")
STEPS = 200


class RowGRU(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.gru = nn.GRU(8, 64, batch_first=True)
        self.head = nn.Linear(64, 10)
        for weight in self.gru.parameters():
            if fixed:
                nn.init.uniform_(weight, -0.1, 0.1)
            else:
                nn.init.uniform_(weight)     # BUG: default range [0, 1)

    def forward(self, x):
        _, h = self.gru(x.view(-1, 8, 8))
        return self.head(h[-1])


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, _, _ = digits_split()
    model = RowGRU(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.003)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
