"""A vmapped deep ensemble that re-stacks its members' weights with
``torch.func.stack_module_state`` inside the training loop and steps an optimizer built over
the members' own parameters. ``stack_module_state`` returns NEW leaf tensors (stacked copies,
detached from the modules they came from), so the forward pass through
``functional_call`` + ``vmap`` reads the copies, ``loss.backward()`` fills the copies'
``.grad`` and the members' parameters never receive a gradient: ``optimizer.step()`` skips
them all, the next step stacks the same untouched weights again, and the ensemble stays at
its random initialisation for the whole run. No error, no warning; the printed loss just
wanders around its starting value.

Reported: "Backpropagation with model ensembling" -
https://github.com/pytorch/pytorch/issues/120581 (an ensemble following the model-ensembling
tutorial: ``stack_module_state(models)`` called every epoch, ``vmap(functional_call)`` for the
forward pass, ``Adam(models.parameters())`` - "the models are not optimizing"; the stacked
parameters are unrelated leaves by design (pytorch/pytorch#92274: "optimize directly over the
stacked parameters"), so the fix is to stack once, before the loop, and hand the stacked
tensors to the optimizer). Here five digit MLPs (64-64-10) stacked and run with
``vmap(functional_call)`` on the same batches, Adam at 1e-3, the ensemble scored on 297
held-out digits by its members' mean softmax. Fix: stack once and optimise the stacked
parameters (kept as the parameters of a small holder module).

Measured (300 steps, held-out accuracy of the averaged ensemble): seed 0: 0.051 with the
bug against 0.926 for the fixed twin; seeds shifted by 1000: 0.158 against 0.943. The bug's
members end exactly at their initial weights.
"""
import copy

import torch
from torch import nn
from torch.func import functional_call, stack_module_state, vmap

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "Backpropagation with model ensembling"
LINK = "https://github.com/pytorch/pytorch/issues/120581"
EXPECTED = ("NO_GRADIENT", "UNREGISTERED_PARAMETERS")
STEPS = 300
MEMBERS, HELD_OUT = 5, 297


class Stacked(nn.Module):
    """Holds the stacked ensemble weights as parameters, so an optimizer (and the monitor) can
    own them; names keep the members' layout with '.' written as '__'."""

    def __init__(self, stacked):
        super().__init__()
        self.weights = nn.ParameterDict({name.replace(".", "__"): nn.Parameter(tensor.detach())
                                         for name, tensor in stacked.items()})

    def state(self):
        return {name.replace("__", "."): tensor for name, tensor in self.weights.items()}


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    order = torch.randperm(len(x))
    x, y = x[order], y[order]
    x_train, y_train, x_test, y_test = x[:-HELD_OUT], y[:-HELD_OUT], x[-HELD_OUT:], y[-HELD_OUT:]
    members = nn.ModuleList([mlp() for _ in range(MEMBERS)])
    base = copy.deepcopy(members[0]).to("meta")          # the architecture, without storage

    def one_member(params, buffers, inputs):
        return functional_call(base, (params, buffers), (inputs,))

    ensemble = vmap(one_member, in_dims=(0, 0, None))
    if fixed:      # stack once; the stacked tensors are what the optimizer steps
        params, buffers = stack_module_state(list(members))
        model = Stacked(params)
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    else:
        model = members
        optimizer = torch.optim.Adam(members.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x_train, y_train, steps, seed=0):
            if fixed:
                params = model.state()
            else:  # BUG: fresh stacked copies every step; the members never get a gradient
                params, buffers = stack_module_state(list(members))
            logits = ensemble(params, buffers, xb)                      # (members, batch, 10)
            loss = nn.functional.cross_entropy(logits.flatten(0, 1), yb.repeat(MEMBERS))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        if not fixed:
            params, buffers = stack_module_state(list(members))
        else:
            params = model.state()
        probs = ensemble(params, buffers, x_test).softmax(-1).mean(0)
    mon.held_out_accuracy = round(float((probs.argmax(1) == y_test).float().mean()), 3)
    return mon
