"""Layers unfrozen (requires_grad=True) during training, with an optimizer built over the
parameters that were trainable at the start: the unfrozen layers get gradients, but the
optimizer does not hold them, so they never change.

Reported: "[BUG] LISA: same loss regardless of lisa_activated_layers" -
https://github.com/OptimalScale/LMFlow/issues/726 ("optimizer_grouped_parameters contains
only those parameters which requires_grad at the time you start training. If you now
freeze and unfreeze layers by changing requires_grad, it will not change the optimizer's
behaviour"). Here a digits MLP whose first layer is unfrozen after 20 steps. Fix: give the
unfrozen parameters to the optimizer (optimizer.add_param_group).
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "[BUG] LISA: same loss regardless of lisa_activated_layers"
LINK = "https://github.com/OptimalScale/LMFlow/issues/726"
EXPECTED = ("OPTIMIZER_MISSING_PARAMS",)
STEPS = 150
UNFREEZE_AT = 20


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    model[0].requires_grad_(False)           # start with the first layer frozen
    trainable = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.Adam(trainable, lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for step, (xb, yb) in enumerate(batches(x, y, steps)):
            if step == UNFREEZE_AT:
                model[0].requires_grad_(True)
                if fixed:
                    optimizer.add_param_group({"params": list(model[0].parameters())})
                # BUG when not fixed: the optimizer still holds the layers trainable at start
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon
