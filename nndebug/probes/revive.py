"""Bring dead ReLU units back: ``revive_dead_neurons(model, inputs)``.

A ReLU unit is dead when its pre-activation is negative for every input: it outputs 0,
its gradient is 0, so no optimizer step can ever move its incoming weights again. Big
learning-rate spikes and large negative biases kill units for good; a network with most
of its units dead trains like a much smaller one, or not at all.

Reviving re-draws the dead units' incoming weights (Kaiming normal, the initialisation
made for ReLU) and zeroes their bias, so they start over as freshly initialised units.
"""
import contextlib

import numpy as np

from .. import validation
from ..adapters import adapt
from ..records import DROPOUT_TYPES
from ._training import no_grad

RELU_TYPES = ("ReLU",)
"""Module types whose all-zero outputs mean a dead unit (only modules are visible: a relu
called as a function inside ``forward`` cannot be attributed to a layer)."""
NORM_TYPES = ("BatchNorm1d", "BatchNorm2d", "BatchNorm3d")
"""Per-unit layers between the weights and the ReLU: their scale/shift are reset too."""
PASS_THROUGH_TYPES = {*NORM_TYPES, *DROPOUT_TYPES, "Identity"}
MAX_ROUNDS = 5
"""Re-draws: a unit fed by a layer that was itself all dead only comes alive after that layer
is revived; a freshly drawn unit can (rarely) be dead on the batch again."""


def find_dead_units(model, inputs):
    """``{weight layer name: sorted unit indices}`` of ReLU units that output 0 on every sample.

    The weight layer is the Linear/Conv layer that feeds the ReLU (through batch-norm or
    dropout if there are any). Nothing of the model is changed.
    """
    return {name: sorted(int(u) for u in np.flatnonzero(info["dead"]))
            for name, info in _dead_units(adapt(model), inputs).items() if info["dead"].any()}


def revive_dead_neurons(model, inputs, *, seed=0):
    """Re-initialise the incoming weights and bias of every dead ReLU unit; return how many.

    THIS CHANGES THE MODEL, in place, on purpose - but only the rows of the dead units:
    for each dead unit, its row of the feeding Linear/Conv weight is drawn afresh from
    Kaiming normal (std = sqrt(2 / fan_in)), its bias entry is set to 0, and a batch-norm
    between them gets scale 1, shift 0 and running mean 0 / variance 1 for that unit.
    Every other weight, the train/eval mode, hooks and the RNG state (the draws come from
    a private generator seeded with ``seed``) are left as they were.

    A unit is dead when its ReLU module outputs 0 for every sample of ``inputs`` (and every
    position, for convolutions). If you train with a stateful optimizer (momentum, Adam),
    the revived rows' optimizer state is stale: consider a fresh optimizer afterwards.
    """
    adapter = adapt(model)
    rng = np.random.default_rng(validation.seed(seed))
    if inputs is None:
        raise TypeError("inputs is None; pass a batch of the model's inputs (dead units are the "
                        "ones that output 0 for every sample of it)")
    validation.same_framework(adapter, inputs, "inputs")
    validation.samples(adapter, inputs, "inputs")   # no sample: every unit would look dead
    revived = set()
    for round_ in range(MAX_ROUNDS):
        first = validation.explain_forward_error(adapter, inputs) if round_ == 0 else \
            contextlib.nullcontext()
        with first:   # data the model cannot take: one line naming them
            dead = _dead_units(adapter, inputs)
        todo = {name: info for name, info in dead.items() if info["dead"].any()}
        if not todo:
            break
        for name, info in todo.items():
            units = np.flatnonzero(info["dead"])
            _reinitialise(adapter, info, units, rng)
            revived.update((name, int(u)) for u in units)
    return len(revived)


def _dead_units(adapter, inputs):
    """Run one forward pass (state preserved) and attribute all-zero ReLU outputs to layers."""
    modules = dict(adapter.named_modules())
    names = {id(m): n for n, m in modules.items()}
    calls = []          # (module name, input objects, output object), in call order
    handles = []

    def record(module, args, output):
        calls.append((names[id(module)], args, output))

    for name, module in modules.items():
        if name and adapter.is_leaf_module(module):
            handles.append(adapter.add_forward_hook(module, record))
    try:
        with adapter.preserved(), no_grad(adapter):
            adapter.call_model(adapter.model, adapter.prepare(inputs))
            found = _attribute(adapter, modules, calls)
    finally:
        for handle in handles:
            handle.remove()
    return found


def _attribute(adapter, modules, calls):
    found = {}
    for index, (name, args, output) in enumerate(calls):
        if adapter.module_type(modules[name]) not in RELU_TYPES or not args:
            continue
        chain = _feeding_chain(adapter, modules, calls[:index], args[0])
        if chain is None:
            continue
        layer_name, norms = chain
        weight_shape = tuple(dict(adapter.own_parameters(modules[layer_name]))["weight"].shape)
        units = weight_shape[0]
        values = adapter.to_numpy(output)
        axis = values.ndim - 1 if len(weight_shape) == 2 else 1
        if values.ndim < 2 or values.shape[axis] != units:
            continue
        other = tuple(a for a in range(values.ndim) if a != axis)
        dead = np.all(values == 0, axis=other)
        entry = found.setdefault(layer_name, {"layer": layer_name, "norms": norms, "dead": dead})
        entry["dead"] = entry["dead"] & dead     # a shared layer: dead only if dead at every use
    return found


def _feeding_chain(adapter, modules, earlier, value):
    """(weight layer name, [norm layer names]) whose output became ``value``, or None."""
    norms = []
    for _ in range(len(earlier)):
        producer = next(((n, a) for n, a, out in reversed(earlier) if out is value), None)
        if producer is None:
            return None
        name, args = producer
        kind = adapter.module_type(modules[name])
        if kind in PASS_THROUGH_TYPES:
            if kind in NORM_TYPES:
                norms.append(name)
            if not args:
                return None
            value = args[0]
            continue
        own = dict(adapter.own_parameters(modules[name]))
        if "weight" in own and len(own["weight"].shape) >= 2:
            return name, norms
        return None
    return None


def _reinitialise(adapter, info, units, rng):
    modules = dict(adapter.named_modules())
    own = dict(adapter.own_parameters(modules[info["layer"]]))
    weight = adapter.to_numpy(own["weight"])
    fan_in = int(np.prod(weight.shape[1:]))
    weight[units] = rng.normal(0.0, np.sqrt(2.0 / fan_in), size=(len(units),) + weight.shape[1:])
    adapter.set_parameter(own["weight"], weight)
    if own.get("bias") is not None:
        bias = adapter.to_numpy(own["bias"])
        bias[units] = 0.0
        adapter.set_parameter(own["bias"], bias)
    for norm_name in info["norms"]:
        norm = modules[norm_name]
        norm_params = dict(adapter.own_parameters(norm))
        for pname, value in (("weight", 1.0), ("bias", 0.0)):
            if norm_params.get(pname) is not None:
                array = adapter.to_numpy(norm_params[pname])
                array[units] = value
                adapter.set_parameter(norm_params[pname], array)
        for bname, value in (("running_mean", 0.0), ("running_var", 1.0)):
            buffer = getattr(norm, bname, None)
            if buffer is None:
                continue
            if isinstance(buffer, np.ndarray):
                buffer[units] = value
            else:
                array = adapter.to_numpy(buffer)
                array[units] = value
                adapter.set_parameter(buffer, array)
