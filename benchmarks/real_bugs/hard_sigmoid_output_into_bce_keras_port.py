"""A Keras model ported to PyTorch ends in a hand-written Keras ``hard_sigmoid``
(clamp(0.2 x + 0.5, 0, 1)) fed to ``nn.BCELoss``: outputs clamped to exactly 0 or 1 have no
gradient, so a confidently wrong output (BCELoss clamps its log at -100) stays wrong and the
loss decreases far slower than in Keras.

Reported: "The loss in PyTorch decreases slower than in Keras" -
https://discuss.pytorch.org/t/the-loss-in-pytorch-decreases-slower-than-in-keras/61598
(an Embedding-LSTM-Dense(16, sigmoid) Keras model trained with binary_crossentropy; the
PyTorch port applies a hard_sigmoid to the last Linear layer and trains with BCELoss and
Adam, and its loss falls much more slowly than Keras'). Here the digits as 10 one-hot
binary outputs on an MLP, Adam at 0.01 (at its default 0.001 the two runs are equally
unfinished after 150 steps: 0.74 vs 0.71), batches of 64. Fix: the last Linear
layer's raw outputs into ``nn.BCEWithLogitsLoss`` (what Keras' sigmoid + binary
cross-entropy computes).

Measured (held-out accuracy of the argmax output, 360 digits, 150 steps): 0.78 vs 0.88;
seeds + 1000: 0.78 vs 0.87.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, mlp
from benchmarks.real_bugs._keras_ports import digits_split

TITLE = "The loss in PyTorch decreases slower than in Keras"
LINK = "https://discuss.pytorch.org/t/the-loss-in-pytorch-decreases-slower-than-in-keras/61598"
EXPECTED = ("SATURATED_ACTIVATIONS",)
STEPS = 150


def hard_sigmoid(x):
    return torch.clamp(0.2 * x + 0.5, 0.0, 1.0)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, _, _ = digits_split()
    targets = nn.functional.one_hot(y, 10).float()
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    loss_fn = nn.BCEWithLogitsLoss() if fixed else nn.BCELoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, targets, steps):
            optimizer.zero_grad()
            out = model(xb)
            if not fixed:
                out = hard_sigmoid(out)      # BUG: Keras' hard_sigmoid output into BCELoss
            loss = loss_fn(out, yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
