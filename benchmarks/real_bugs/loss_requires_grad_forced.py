"""The loss is cut off from the model's parameters, backward() fails with "element 0 of
tensors does not require grad and does not have a grad_fn", and the error is silenced with
`loss.requires_grad = True`: backward now runs, but no parameter receives a gradient.

Reported: "RuntimeError: element 0 of tensors does not require grad and does not have a
grad_fn" - https://github.com/ronghuaiyang/arcface-pytorch/issues/56 ("to solve this
problem, i add a line code in the train.py ... loss.requires_grad = True and then it do not
report errors. but when i train, the loss is not decline, and the acc is always zero").
The report does not show where its graph was cut; here the classifier's forward runs
under torch.no_grad() (as code written for inference often does). Fix: compute the
training forward with gradients enabled (and never set requires_grad on a loss).
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn"
LINK = "https://github.com/ronghuaiyang/arcface-pytorch/issues/56"
EXPECTED = ("NO_GRADIENT",)
STEPS = 150


class Classifier(nn.Module):
    def __init__(self, inference_forward):
        super().__init__()
        self.inference_forward = inference_forward
        self.body = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))

    def forward(self, x):
        if self.inference_forward:
            with torch.no_grad():            # BUG: no graph back to the parameters
                return self.body(x)
        return self.body(x)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = Classifier(inference_forward=not fixed)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            if not loss.requires_grad:
                loss.requires_grad = True    # BUG: silences the error, trains nothing
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
