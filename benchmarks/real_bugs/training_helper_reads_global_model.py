"""A notebook's training helper, ``run_adam(model, iterations)``, builds its optimizer over
``model``'s parameters but computes the loss with ``m``, the model a cell above created
under that global name. The first experiment calls it with ``m`` itself and works. The
next cell builds a second model and calls ``run_adam(model2, ...)``: the loss (and the
log) is still the first model's, already trained, so the printed numbers look fine, while
the second model gets no gradient at all and is evaluated as initialised. Nothing errors:
torch's Adam skips parameters whose ``.grad`` is None.

Reported: "Fix training function, which refers to model in outside scope" -
https://github.com/GPflow/GPflow/pull/1123 (a training function in GPflow's notebooks
used the model of the enclosing scope rather than the one passed to it; a helper of that
shape, ``run_adam(model, iterations)`` with ``m.training_loss_closure()`` inside, also
turns up in users' notebooks, harmless only while it is called with ``m``). Here in
torch, on the 8x8 digits: the first experiment an MLP 64 -> 32 -> 10 (``m``), the second
a wider one 64 -> 128 -> 10 trained by the same helper (Adam 1e-3, batches of 64, 300
steps - the watched run). Fix: the helper's loss from its own ``model`` argument.

Measured (held-out accuracy on 397 digits of the second model): 0.05 with the bug, 0.96
fixed; seeds + 1000: 0.13 vs 0.95.
"""
import contextlib

import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, mlp
from benchmarks.real_bugs._nb147 import accuracy, split

TITLE = "Fix training function, which refers to model in outside scope"
LINK = "https://github.com/GPflow/GPflow/pull/1123"
EXPECTED = ("NO_GRADIENT", "PARAMS_NOT_UPDATING")
STEPS = 300

m = None        # the notebook's global model (the first experiment's)


def run_adam(model, x, y, iterations, fixed, seed=0, watch=None):
    """The notebook's helper: Adam over ``model``'s parameters, one loss per step. ``watch``
    (options, or None): the call nndebug watches - it returns the monitor."""
    loss_fn = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    trained = model if fixed else m         # BUG: the global ``m``, not ``model``
    watching = nd.watch(model, optimizer, **watch) if watch is not None \
        else contextlib.nullcontext()
    with watching as mon:
        for xb, yb in batches(x, y, iterations, seed=seed):
            optimizer.zero_grad()
            loss = loss_fn(trained(xb), yb)
            loss.backward()
            optimizer.step()
            if mon is not None:
                mon.step(loss)
    return mon


def run(fixed=False, steps=STEPS, **watch):
    global m
    torch.manual_seed(0)
    x, y, xh, yh = split()
    # first experiment (an earlier cell): the helper called with ``m`` itself
    m = mlp(hidden=32)
    run_adam(m, x, y, 300, fixed, seed=1)
    # the next cell: a wider model, trained by the same helper (the watched call)
    model2 = mlp(hidden=128)
    mon = run_adam(model2, x, y, steps, fixed, seed=0, watch=watch)
    mon.held_out_accuracy = accuracy(model2, xh, yh)
    return mon
