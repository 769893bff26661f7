"""L2 regularisation applied twice: the optimizer is built with ``weight_decay=l2`` and the
loss adds ``l2 * sum(w**2)`` by hand as well. Adam's weight_decay is the coupled L2 kind
(``l2 * w`` added to each gradient), and the hand-written penalty adds ``2 * l2 * w`` more:
the weights are pulled to zero three times as hard as intended, and the model underfits.

Reported: "L2 regularization is performed twice!!" -
https://github.com/rutgerswiselab/NCR/issues/2 ("you perform L2 regularization two times
at every optimizer step: 1. In your optimizer declaration ... you added the weight_decay
parameter ... 2. Every time you compute the loss you add a manually computed L2
regularization term"; the authors: "you can keep one of them"). Here a digits MLP trained
with Adam, the L2 strength chosen so that one penalty is a mild regulariser. Fix: keep one
of the two (here the optimizer's weight_decay; the loss is the data term alone).
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "L2 regularization is performed twice!!"
LINK = "https://github.com/rutgerswiselab/NCR/issues/2"
EXPECTED = ("WEIGHT_DECAY_APPLIED_TWICE",)
STEPS = 200
L2 = 8e-3         # one penalty at this strength is mild (under Adam's coupled-decay limit)


def l2_of(model):
    """The report's model.l2(): the sum of every parameter's squares."""
    return sum((p ** 2).sum() for p in model.parameters())


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3, weight_decay=L2)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            if not fixed:
                loss = loss + l2_of(model) * L2     # BUG: L2 again, on top of weight_decay
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
