"""The Keras habit of a final softmax layer (``Dense(10, activation='softmax')`` with
categorical_crossentropy) carried into PyTorch, where ``nn.CrossEntropyLoss`` applies its
own log-softmax: the loss reads softmax(softmax(logits)), its gradient shrinks as the
probabilities saturate, and the loss stalls well above what the network can reach.

Reported: "Cross Entropy loss is not decreasing" -
https://discuss.pytorch.org/t/cross-entropy-loss-is-not-decreasing/43814/16 (the loss stays
near 2.30 epoch after epoch; the answer's first fix: "Check if you pass the softmax into the
CrossEntropy loss. If you do, correct it"). Here a digits MLP ending in ``nn.Softmax(dim=1)``
trained with SGD (momentum 0.9, rate 0.05), batches of 64. Fix: drop the softmax layer (the
loss takes the raw logits).

Measured (held-out accuracy, 360 digits, 200 steps): 0.78 vs 0.89; seeds + 1000: 0.63 vs
0.89.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._keras_ports import digits_split

TITLE = "Cross Entropy loss is not decreasing"
LINK = "https://discuss.pytorch.org/t/cross-entropy-loss-is-not-decreasing/43814/16"
EXPECTED = ("DOUBLE_SOFTMAX",)
STEPS = 200


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, _, _ = digits_split()
    layers = [nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10)]
    if not fixed:
        layers.append(nn.Softmax(dim=1))     # BUG: Keras' softmax output layer kept
    model = nn.Sequential(*layers)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
