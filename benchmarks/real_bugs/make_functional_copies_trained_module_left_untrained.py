"""A classifier trained through functorch's ``make_functional``: ``func_model, params =
make_functional(model)`` and an optimizer over ``params``, every forward pass
``func_model(params, x)``. ``make_functional`` hands back COPIES of the module's weights
(fresh leaf tensors; the module itself is moved to a stateless shell behind ``func_model``),
so the optimizer trains the copies while ``model`` keeps its random initialisation. The
training loss falls exactly as it should - it is computed from the copies - and then the
module that is evaluated, saved or deployed, ``model``, is the untrained one. No error.

Reported: "How to update the original model parameters after calling make_functional?" -
https://github.com/pytorch/functorch/issues/280 (updating the tensors returned by
``make_functional`` "does not update the real parameters in the original model"; the
functorch maintainers' answer was that ``make_functional`` copies by design, and its
replacement ``torch.func.functional_call(model, dict(model.named_parameters()), x)`` runs the
module with tensors the caller chooses - the module's own parameters included - so training
those updates the model). Here a digits MLP (64-64-10) trained with Adam at 1e-3 on the
functional forward, 400 steps of 64, scored on 297 held-out digits by calling ``model``.
Fix: the ``functional_call`` form over the module's own parameters.

Measured (held-out accuracy of ``model``): seed 0: 0.067 with the bug against 0.939 for the
fixed twin; seeds shifted by 1000: 0.094 against 0.939 (the bug's copies reach the twin's
training loss; ``model`` is still its initialisation).
"""
import warnings

import functorch
import torch
from torch import nn
from torch.func import functional_call

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "How to update the original model parameters after calling make_functional?"
LINK = "https://github.com/pytorch/functorch/issues/280"
EXPECTED = ("OPTIMIZER_MISSING_PARAMS", "UNREGISTERED_PARAMETERS")
STEPS = 400
HELD_OUT = 297


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    order = torch.randperm(len(x))
    x, y = x[order], y[order]
    x_train, y_train, x_test, y_test = x[:-HELD_OUT], y[:-HELD_OUT], x[-HELD_OUT:], y[-HELD_OUT:]
    model = mlp()
    if fixed:      # torch.func: run the module with its own parameters
        params = dict(model.named_parameters())

        def forward(inputs):
            return functional_call(model, params, (inputs,))
        trained = list(params.values())
    else:          # BUG: make_functional's params are copies of the module's weights
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            func_model, params = functorch.make_functional(model)

        def forward(inputs):
            return func_model(params, inputs)
        trained = list(params)
    optimizer = torch.optim.Adam(trained, lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x_train, y_train, steps, seed=0):
            loss = nn.functional.cross_entropy(forward(xb), yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        mon.held_out_accuracy = round(float((model(x_test).argmax(1) == y_test).float().mean()), 3)
    return mon
