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
"""
import contextlib

from ..adapters.base import nndebug_hook
from . import statistics

MAX_CALLS_PER_LAYER = 16     # a shared layer called many times per forward: first 16 calls
OUTPUT_ROWS = 256            # rows of the model output copied to check for probabilities
OUTPUT_MAX_COLUMNS = 4096


class Forward:
    """Statistics of one forward pass, collected by the hooks until it is committed."""

    __slots__ = ("layers", "counts", "inputs", "output", "eval_layers")

    def __init__(self):
        self.layers, self.counts = [], {}
        self.inputs, self.output, self.eval_layers = [], None, []


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
        self._snapshot_buffers = None         # reused by every record (copies_into)
        self.forward = self.buffer = None
        self._handles, self._hook_tables = [], None
        # the hooks, made once: guarded so that an exotic output cannot break the forward
        self._root_hooks = (self._guard(self._on_root_input), self._guard(self._on_root_output))
        self._layer_hooks = [(module, self._guard(self._make_layer_hook(name, kind)))
                             for name, module, kind in layers]
        self._grad_hooks = [self._make_grad_hook(index) for index in range(len(params))]

    # --- on and off ----------------------------------------------------------------------
    def arm(self, heavy, rows=False):
        """Hooks on for the coming step; ``heavy``: also the heavy statistics; ``rows``: a
        sample of each input row (``sample_rows.py``)."""
        adapter = self.adapter
        self.armed, self.heavy, self.rows = True, heavy, rows
        self.delivered = [None] * len(self.params)
        self.forward, self.buffer = None, Forward()
        # the weights before the update, in buffers kept from one record to the next
        self.snapshot = self._snapshot_buffers = adapter.copies_into(self._snapshot_buffers,
                                                                     self.params)
        handles = self._handles
        self._hook_tables = adapter.tensor_hook_tables(self.params)
        handles.append(adapter.add_tensor_hooks(self.params, self._grad_hooks))
        root = adapter.model
        on_input, on_output = self._root_hooks
        handles.append(adapter.add_forward_pre_hook(root, on_input))
        # every layer's hook, then the model's output hook, in one call (one handle)
        handles.append(adapter.add_forward_hooks(self._layer_hooks + [(root, on_output)]))

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
        return self.forward or self.buffer or Forward()

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
            # list of the step being recorded: arm() starts a new one)
            delivered = self.delivered
            previous = delivered[index]
            delivered[index] = grad if previous is None else previous + grad
        return on_grad

    def _on_root_input(self, module, inputs):
        if self.forward is not None:      # a training forward was already measured this step
            return
        self.buffer = buffer = Forward()
        leaves = self.adapter.float_leaves(inputs)
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
            if leaves:
                key = name if calls == 1 else f"{name}#{calls}"
                buffer.layers.append((key, statistics.layer_stats(
                    self.xp, self.adapter.detach(leaves[0]), kind, self.heavy,
                    self._statistic_failed(f"layer {key}"))))
        return on_output

    def _on_root_output(self, module, inputs, output):
        buffer = self.buffer
        if buffer is None or self.forward is not None:
            return
        leaves = self.adapter.float_leaves(output)
        if not any(getattr(t, "requires_grad", False) for t in leaves):
            self.buffer = Forward()   # an evaluation pass (no graph): not what is trained
            return
        out = self.adapter.detach(leaves[0])
        if out.ndim == 2 and 2 <= out.shape[1] <= OUTPUT_MAX_COLUMNS:
            buffer.output = out[:OUTPUT_ROWS]
        buffer.eval_layers = [n for n, m in self.mode_layers if not self.adapter.is_training(m)]
        self.forward, self.buffer = buffer, None
