"""optimizer.zero_grad() called once per epoch, before the batch loop, instead of once per
batch: within an epoch every step applies the sum of all the epoch's gradients so far.

Reported: "zero_grad() 질문 있습니다." ("a question about zero_grad()") -
https://github.com/heartcored98/Standalone-DeepLearning/issues/11 ("zero_grad() is used
once per epoch; shouldn't it come before every loss.backward()?"; the author fixed "the
same error in several lab notebooks"). Here a digits MLP with 50-batch epochs. Fix: zero
the gradients for every batch.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "zero_grad() 질문 있습니다."
LINK = "https://github.com/heartcored98/Standalone-DeepLearning/issues/11"
EXPECTED = ("GRADIENTS_ACCUMULATING",)
STEPS = 150
EPOCH = 50


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    data = batches(x, y, steps)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps // EPOCH):
            optimizer.zero_grad()            # BUG when not fixed: only once per epoch
            for _, (xb, yb) in zip(range(EPOCH), data):
                if fixed:
                    optimizer.zero_grad()
                loss = loss_fn(model(xb), yb)
                loss.backward()
                optimizer.step()
                mon.step(loss)
    return mon
