"""The hooks of a recorded step: put on before the step, taken off right after it.

Between recorded steps the model runs with no hook at all. For a recorded step
``StepHooks.arm`` installs
- a tensor hook on every trainable parameter, summing what backward delivers,
- a forward pre-hook on the model (the input batch) and a forward hook on it (the output),
- a forward hook on every measured layer (its output statistics, ``statistics.py``).
No module backward hooks are used: they break in-place operations.

Every hook is guarded: an exotic output never breaks the user's forward pass; the error
is handed to ``on_error`` and the step goes on. A single statistic that fails is handed
to ``on_statistic_error(what, error)`` instead: it alone is missing from the record.

Small outputs are measured together. On most records a layer's statistics are the light
ones (mean, std, per-ReLU-unit maximum), and for a small output their cost is almost all
per-call overhead. So a small output is only kept (a reference, no copy) when its layer
runs, and at the end of the forward pass all kept outputs of one shape are stacked and
measured in a few operations (``statistics.batched_light_stats``). Measured late, an
output must still hold what the layer returned: a later in-place operation
(``nn.ReLU(inplace=True)`` on a linear layer's output, ``out += identity`` in a ResNet
block) would change it. The version counter of each kept output tells (``_finish``): the
first record measures every layer at once and notes which outputs are changed later, and
those layers are measured at once from then on; a layer first seen changed on a later
record loses that record's statistics only. The heavy records measure every layer at once.
"""
import contextlib

from ..adapters.base import nndebug_hook
from . import statistics
from .autograd_grad_calls import accumulators, inside_gradient_call

MAX_CALLS_PER_LAYER = 16     # a shared layer called many times per forward: first 16 calls
MEASURED_LATE_MAX = 1 << 16
"""[measured] Outputs of at most this many values are measured together at the end of the
forward pass; larger ones at once (their arithmetic dwarfs the per-call overhead, and
keeping them would hold memory the forward pass may have freed)."""
MEASURED_LATE_TOTAL = 1 << 22
"""[design] At most this many values kept per forward pass (16 MiB of float32): a model of
thousands of small layers measures the rest at once."""
OUTPUT_ROWS = 256            # rows of the model output copied to check for probabilities
OUTPUT_MAX_COLUMNS = 4096


class Forward:
    """Statistics of one forward pass, collected by the hooks until it is committed."""

    __slots__ = ("layers", "counts", "inputs", "output", "eval_layers", "late", "late_size",
                 "watched", "leaves")

    def __init__(self):
        self.layers, self.counts = [], {}
        self.inputs, self.output, self.eval_layers = [], None, []
        self.late, self.late_size = [], 0   # [(index in layers, key, kind, output, version)]
        self.watched = []                   # [(key, output, version)]: measured at once, and
                                            # checked for a later in-place change
        self.leaves = []                    # the model's float outputs (head_rows.py)


class StepHooks:
    """Installs and removes the hooks of one recorded step, and holds what they saw."""

    def __init__(self, adapter, params, layers, mode_layers, on_error, on_statistic_error=None):
        self.adapter, self.xp = adapter, adapter.xp
        self.params = params                  # trainable parameters, aligned with run.params
        self.mode_layers = mode_layers        # [(name, module)] dropout and batch-norm layers
        self.on_error = on_error
        self.on_statistic_error = on_statistic_error or (lambda what, error: on_error(error))
        self.armed = False
        self.heavy = False
        self.rows = False
        # the context a hook's own measurements run in: the monitor sets it so that they
        # bypass its attention mode (attention_capture.py), which would see each of them
        self.quiet = contextlib.nullcontext
        self.delivered, self.snapshot = [], None
        self.events = []   # real-bug batch 87 (arm resets it)
        self._snapshot_buffers = None         # reused by every record (copies_into)
        self.forward = self.buffer = None
        self._handles, self._hook_tables = [], None
        self.changed_later = set()            # layers whose output an in-place op changes
        self._checked = False                 # whether a record has found those layers
        # the hooks, made once: guarded so that an exotic output cannot break the forward
        self._root_hooks = (self._guard(self._on_root_input), self._guard(self._on_root_output))
        self._layer_hooks = [(module, self._guard(self._make_layer_hook(name, kind)))
                             for name, module, kind in layers]
        self._grad_hooks = [self._make_grad_hook(index) for index in range(len(params))]
        self._accumulators = None             # the parameters' AccumulateGrad nodes (arm)

    # --- on and off ----------------------------------------------------------------------
    def arm(self, heavy, rows=False):
        """Hooks on for the coming step; ``heavy``: also the heavy statistics; ``rows``: a
        sample of each input row (``sample_rows.py``)."""
        adapter = self.adapter
        self.armed, self.heavy, self.rows = True, heavy, rows
        self.delivered = [None] * len(self.params)
        # real-bug batch 87: this step's forwards ("A": on an input that requires grad, an
        # attack's or a saliency pass's; "T": any other) and backward passes that reached the
        # first parameter's .grad ("B"), in order (short Python strings, nothing on the device)
        self.events = []
        self.forward, self.buffer = None, Forward()
        # the weights before the update, in buffers kept from one record to the next
        self.snapshot = self._snapshot_buffers = adapter.copies_into(self._snapshot_buffers,
                                                                     self.params)
        handles = self._handles
        self._hook_tables = adapter.tensor_hook_tables(self.params)
        if self._accumulators is None:
            self._accumulators = accumulators(adapter.framework, self.params) or []
        handles.append(adapter.add_tensor_hooks(self.params, self._grad_hooks))
        root = adapter.model
        on_input, on_output = self._root_hooks
        handles.append(adapter.add_forward_pre_hook(root, on_input))
        # every layer's hook, then the model's output hook, in one call (one handle)
        handles.append(adapter.add_forward_hooks(self._layer_hooks + [(root, on_output)]))

    def retake_snapshot(self):
        """The weights before the update copied again, into the same buffers: the
        optimizer is about to step (``step_snapshot.py``), and what the loop wrote into the
        weights since the hooks went on is no part of the update."""
        self.snapshot = self._snapshot_buffers = self.adapter.copies_into(
            self._snapshot_buffers, self.params)

    def disarm(self):
        """Every hook off; what they saw stays readable until ``clear``."""
        for handle in self._handles:
            handle.remove()
        if self._handles:
            self.adapter.restore_tensor_hook_tables(self.params, self._hook_tables)
        self._handles.clear()
        self.armed = False

    def measured_forward(self):
        """The training forward of this step (or the one still being collected)."""
        forward = self.forward or self.buffer or Forward()
        self._finish(forward)
        return forward

    def clear(self):
        self.forward = self.buffer = None
        self.delivered, self.snapshot = [], None

    def drop_forward(self):
        """Forget the forward statistics (after an error inside a hook)."""
        self.forward = self.buffer = None

    # --- the hooks -------------------------------------------------------------------
    def _guard(self, hook):
        @nndebug_hook                     # ours: private copies of the model leave it behind
        def guarded(*args):               # returns None: never replaces an output
            try:
                with self.quiet():
                    hook(*args)
            except Exception as error:    # never break the user's forward pass
                self.on_error(error)
        return guarded

    def _statistic_failed(self, where):
        def on_error(stat, error):
            self.on_statistic_error(f"{stat} of {where}", error)
        return on_error

    def _make_grad_hook(self, index):
        @nndebug_hook
        def on_grad(grad):
            # the sum of what backward delivered since the last optimizer step (into the
            # list of the step being recorded: arm() starts a new one); a gradient handed
            # back by torch.autograd.grad never reaches .grad (autograd_grad_calls.py)
            nodes = self._accumulators
            if nodes and inside_gradient_call(nodes[index]):
                return
            delivered = self.delivered
            previous = delivered[index]
            delivered[index] = grad if previous is None else previous + grad
            if index == 0:
                self.events.append("B")       # batch 87: a backward pass reached .grad
        return on_grad

    def _on_root_input(self, module, inputs):
        leaves = self.adapter.float_leaves(inputs)
        attack = bool(leaves) and getattr(leaves[0], "requires_grad", False)
        self.events.append("A" if attack else "T")   # batch 87
        if self.forward is not None:      # a training forward was already measured this step
            return
        self.buffer = buffer = Forward()
        if leaves:
            buffer.inputs = statistics.input_stats(self.xp, self.adapter.detach(leaves[0]),
                                                   self.heavy, self._statistic_failed("input"),
                                                   self.rows)

    def _make_layer_hook(self, name, kind):
        def on_output(module, inputs, output):
            buffer = self.buffer
            if buffer is None or self.forward is not None:
                return
            calls = buffer.counts.get(name, 0) + 1
            buffer.counts[name] = calls
            if calls > MAX_CALLS_PER_LAYER:
                return
            leaves = self.adapter.float_leaves(output)
            if leaves and _size(leaves[0]) > 0:     # an empty output has nothing to measure
                key = name if calls == 1 else f"{name}#{calls}"   # (a layer of 0 units)
                out = self.adapter.detach(leaves[0])
                if self._measure_late(buffer, key, kind, out):
                    return
                buffer.layers.append((key, statistics.layer_stats(
                    self.xp, out, kind, self.heavy, self._statistic_failed(f"layer {key}"))))
                if not self._checked:
                    version = self.adapter.version_counter(out)
                    if version is not None:
                        buffer.watched.append((key, out, version))
        return on_output

    def _measure_late(self, buffer, key, kind, out):
        """Keep ``out`` to be measured with its like at the end of the forward pass, if it
        may be (see the module docstring); True when kept."""
        if self.heavy or not self._checked or kind in statistics.SPECIAL_KINDS or \
                key in self.changed_later:
            return False
        size = _size(out)
        if size > MEASURED_LATE_MAX or buffer.late_size + size > MEASURED_LATE_TOTAL:
            return False
        version = self.adapter.version_counter(out)
        if version is None:
            return False
        buffer.layers.append((key, None))
        buffer.late.append((len(buffer.layers) - 1, key, kind, out, version))
        buffer.late_size += size
        return True

    def _finish(self, buffer):
        """The statistics of the outputs kept for the end of the forward pass, and the
        layers whose output changed after their hook ran (see the module docstring)."""
        version_of = self.adapter.version_counter
        if buffer.watched:
            self.changed_later.update(key for key, out, version in buffer.watched
                                      if version_of(out) != version)
            buffer.watched = []
            self._checked = True
        if not buffer.late:
            return
        late, buffer.late, buffer.late_size = buffer.late, [], 0
        changed = [entry for entry in late if version_of(entry[3]) != entry[4]]
        if changed:
            self.changed_later.update(key for _, key, _, _, _ in changed)
            late = [entry for entry in late if version_of(entry[3]) == entry[4]]
        groups = {}
        for entry in late:
            out = entry[3]
            groups.setdefault((tuple(out.shape), str(out.dtype), str(getattr(out, "device", ""))),
                              []).append(entry)
        for group in groups.values():
            outputs = [entry[3] for entry in group]
            try:
                measured = statistics.batched_light_stats(
                    self.xp, outputs, [kind == "relu" and out.ndim >= 2 and out.shape[0] > 1
                                       for (_, _, kind, _, _), out in zip(group, outputs)])
            except Exception:     # one by one then: a failing statistic costs that one only
                measured = [statistics.layer_stats(self.xp, out, kind, False,
                                                   self._statistic_failed(f"layer {key}"))
                            for (_, key, kind, out, _) in group]
            for (index, key, _, _, _), stats in zip(group, measured):
                buffer.layers[index] = (key, stats)
        buffer.layers = [(key, stats) for key, stats in buffer.layers if stats is not None]

    def _on_root_output(self, module, inputs, output):
        buffer = self.buffer
        if self.forward is not None and self.forward.eval_layers:
            # real-bug batch 87: a later forward with a graph in the same step (the training
            # forward after an attack or saliency pass run in eval mode) that runs a layer in
            # train mode: that layer was trained in train mode. Python flags only.
            if any(getattr(t, "requires_grad", False)
                   for t in self.adapter.float_leaves(output)):
                self.forward.eval_layers = [n for n, m in self.mode_layers
                                            if n in self.forward.eval_layers
                                            and not self.adapter.is_training(m)]
            return
        if buffer is None or self.forward is not None:
            return
        leaves = self.adapter.float_leaves(output)
        if not any(getattr(t, "requires_grad", False) for t in leaves):
            self.buffer = Forward()   # an evaluation pass (no graph): not what is trained
            return
        out = self.adapter.detach(leaves[0])
        if out.ndim == 2 and 2 <= out.shape[1] <= OUTPUT_MAX_COLUMNS:
            buffer.output = out[:OUTPUT_ROWS]
        buffer.leaves = leaves
        buffer.eval_layers = [n for n, m in self.mode_layers if not self.adapter.is_training(m)]
        self._finish(buffer)
        self.forward, self.buffer = buffer, None


def _size(tensor):
    """The number of elements of a torch tensor or a minigrad tensor / NumPy array."""
    return tensor.numel() if hasattr(tensor, "numel") else tensor.size
