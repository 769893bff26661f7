"""One host transfer per recorded step: pack every small result, copy once, unpack.

A recorded step produces dozens of small device values (norms, means, a few vectors).
Copying each to the host would wait on the device dozens of times; instead ``Packet``
stacks the scalars, appends the vectors, and ``Packet.send`` copies the lot in ONE
transfer. ``build_record`` then turns the host values into a ``StepRecord``.

Keys: a parameter statistic is ``"grad_norm"`` etc. (one vector over the parameters),
an input statistic ``("input", stat)``, a layer statistic ``("layer", name, stat)``,
the output sample ``"output"``; losses waiting on the device ride along as ``"loss"``
and ``"val"``.
"""
import math

import numpy as np

from ..records import StepRecord
from . import statistics

PARAMETER_STATISTICS = ("grad_norm", "held_norm", "held_excess", "param_norm", "update_norm")


def to_host_many(adapter, tensors):
    """One device-to-host copy for a list of small tensors (flattened, concatenated)."""
    xp = adapter.xp
    try:
        return adapter.to_host(xp.concat([xp.asfloat(t) for t in tensors]))
    except (RuntimeError, TypeError, ValueError):   # mixed devices or dtypes: one by one
        return np.concatenate([np.asarray(adapter.to_host(t), dtype=float).reshape(-1)
                               for t in tensors])


class Packet:
    """The small results of one step, waiting for their one trip to the host. Unpacked,
    the values come back in the order they were added (a record's layers keep the
    forward's order)."""

    def __init__(self):
        self.scalars = []          # 0-d tensors, stacked in front of the vectors
        self.vectors = []          # tensors, flattened and joined after the scalars
        self.entries = []          # [(key, index of a scalar, None) or (key, offset in
                                   # the joined vectors, size)], in the order added
        self._size = 0             # values in self.vectors so far
        self._rows = {}            # id(vector of a Slot) -> (its offset, values per row)
        self.known = {}      # values already on the host (Python floats): no transfer

    def add(self, key, value):
        """One statistic: a 0-d or n-d device tensor, a Python float, a ``Slot`` (one row
        of a batched statistic: ``statistics.Slot``), or None (skipped)."""
        if value is None:
            return
        if isinstance(value, float):
            self.known[key] = np.array([value])
        elif type(value) is statistics.Slot:
            offset, row = self._slot_vector(value.vector)
            self.entries.append((key, offset + value.index * row, row))
        elif value.ndim == 0:
            self.entries.append((key, len(self.scalars), None))
            self.scalars.append(value)
        else:
            self._append(value, [(key, math.prod(value.shape))])

    def add_joined(self, vector, keys_and_sizes):
        """A 1-D tensor that holds several statistics one after the other."""
        self._append(vector, keys_and_sizes)

    def _append(self, vector, keys_and_sizes):
        self.vectors.append(vector)
        for key, size in keys_and_sizes:
            self.entries.append((key, self._size, size))
            self._size += size

    def _slot_vector(self, vector):
        """(offset, values per row) of a batched statistic's vector: sent whole, once,
        however many of its rows are added (one per layer output of a group)."""
        known = self._rows.get(id(vector))
        if known is None:
            size = math.prod(vector.shape)
            known = self._rows[id(vector)] = (self._size, size // vector.shape[0])
            self.vectors.append(vector)
            self._size += size
        return known

    def send(self, adapter):
        """The one transfer: ``(values, losses)``; ``values[key]`` is a 1-D NumPy array,
        ``losses`` maps "loss"/"val" to the host values of the pending loss tensors."""
        xp = adapter.xp
        parts = ([xp.stack(self.scalars)] if self.scalars else []) + self.vectors
        host = to_host_many(adapter, parts) if parts else np.zeros(0)
        values, losses = dict(self.known), {"loss": [], "val": []}
        start = len(self.scalars)
        for key, at, size in self.entries:
            if size is None:                      # a scalar
                if key in losses:
                    losses[key].append(float(host[at]))
                else:
                    values[key] = host[at:at + 1]     # a view: no array per statistic
            else:
                values[key] = host[start + at:start + at + size]
        return values, losses


def build_record(step, n_params, values, got, comparable, output_shape=None, on_error=None,
                 identical=(), emptied_after_step=()):
    """A ``StepRecord`` (and the step's histograms) from the host values of one packet.

    ``got``: indices of the parameters that received a gradient; ``comparable``: those
    whose ``.grad`` was compared with what backward delivered through norms in the packet;
    ``identical``: those whose ``.grad`` holds exactly what was delivered (its norm is the
    delivered one, its excess zero: nothing was packed for them); ``emptied_after_step``:
    those whose ``.grad`` was written in place after the optimizer's step began
    (``step_snapshot.py``): held at exactly zero, it was cleared after use and says nothing
    of what the step used, so it counts as not measured; ``output_shape``:
    the shape of the output sample, if one was packed. A layer statistic that cannot be
    turned into its record field goes to ``on_error(what, error)`` and is left out.
    """
    record = StepRecord(step=step, backward=bool(got))
    record.grad_norm = np.full(n_params, np.nan)
    record.grad_received = np.zeros(n_params, dtype=bool)
    if got:
        record.grad_norm[got] = values["grad_norm"]
        record.grad_received[got] = True
    record.held_norm = np.full(n_params, np.nan)
    record.held_excess = np.full(n_params, np.nan)
    if comparable:
        record.held_norm[comparable] = values["held_norm"]
        record.held_excess[comparable] = values["held_excess"]
    if identical:
        record.held_norm[identical] = record.grad_norm[identical]
        record.held_excess[identical] = 0.0
    for i in emptied_after_step:
        if record.held_norm[i] == 0.0:
            record.held_norm[i] = record.held_excess[i] = np.nan
    record.param_norm = values.get("param_norm", np.zeros(0)).astype(float)
    record.update_norm = values.get("update_norm", np.zeros(0)).astype(float)
    record.inputs, histograms = {}, {}
    for key, v in values.items():
        kind = key[0] if type(key) is tuple else None
        if kind == "input":
            record.inputs[key[1]] = float(v[0])
        elif kind == "layer":
            try:
                _layer_statistic(record, histograms, key, v)
            except Exception as error:
                if on_error is None:
                    raise
                on_error(f"{key[2]} of layer {key[1]}", error)
    if "output" in values and output_shape is not None:
        record.output = values["output"].reshape(output_shape).astype(float)
    return record, histograms


def _layer_statistic(record, histograms, key, v):
    """Put one layer statistic's host value where it belongs in the record."""
    _, layer, stat = key
    if stat == "histogram":
        counts_edges = statistics.histogram(v)
        if counts_edges is not None:
            histograms[layer] = counts_edges
    elif stat == "unit_max":
        dead, share = statistics.dead_units(v)
        if dead is not None:
            record.dead_units[layer] = dead
        record.activations.setdefault(layer, {})["dead"] = share
    else:
        record.activations.setdefault(layer, {})[stat] = float(v[0])
