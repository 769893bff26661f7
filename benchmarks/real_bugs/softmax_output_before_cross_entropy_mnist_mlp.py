"""An MNIST MLP whose forward ends in ``F.softmax(x, dim=1)`` trained with
``nn.CrossEntropyLoss``, which applies its own log-softmax: the loss sees probabilities as
logits, its gradient shrinks as the outputs saturate and the classifier learns slowly and
stops short.

Reported: "Pytorch CrossEntropy function contains softmax" -
https://github.com/shaoxiongji/federated-learning/issues/9 ("you apply CrossEntropy function
after softmax activation. But actually pytorch CrossEntropy function itself takes logit as
its input. After removing the softmax activation, I'm able to improve the MLP from 90% to
95%"; the author: "fixed"). Here the 8x8 digits, a 64-64-64-10 MLP, SGD with momentum
0.5 as in the repository, 200 steps of 32. Fix: return the logits.

Measured (held-out accuracy on 400 digits, bug vs fixed): seed 0: 0.16 vs 0.86;
seeds + 1000: 0.22 vs 0.82.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._beginner_cls import accuracy, first_mlp, split_digits
from benchmarks.real_bugs._common import batches

TITLE = "Pytorch CrossEntropy function contains softmax"
LINK = "https://github.com/shaoxiongji/federated-learning/issues/9"
EXPECTED = ("DOUBLE_SOFTMAX",)
STEPS = 200


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_test, y_test = split_digits()
    model = first_mlp()
    if not fixed:
        model.append(nn.Softmax(dim=1))          # BUG: CrossEntropyLoss softmaxes again
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.5)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps, batch_size=32):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, x_test, y_test)
    return mon
