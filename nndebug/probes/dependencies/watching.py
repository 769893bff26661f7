"""The dependency probes inside ``nd.watch``: run once, early, on a recorded step.

``nd.watch`` gives every monitor one ``DependencyWatch``. It is both a sink and a probe
(see ``nndebug/monitor/__init__.py``, "How to extend"):

- as a sink, it keeps a reference to the inputs of each training forward pass (a forward
  pre-hook on the model: no copy, no host transfer; the hook is removed as soon as the
  probe has run, or when the monitor closes) and counts optimizer steps, so that it knows
  which step an input batch belongs to;
- as a probe, called once on the first recorded step after the warm-up, it runs
  ``check_dependencies`` on that step's inputs and on the targets that reached the loss
  in the same step (when the monitor saw the loss call), on a private copy, with the RNG
  forked and restored: the user's training is bit-for-bit what it is unwatched.
"""
from ...monitor.sinks import Sink

KEPT_STEPS = 2
"""Input batches kept (references): the current step's, and the one before."""
MAX_PARAMETERS = 20_000_000
"""Larger models are not probed inside watch: the probe works on a float64 copy, and doubling
the memory of a big model in the middle of someone's training run is not a price to impose.
``nd.check_dependencies`` can still be called on them directly."""


class DependencyWatch(Sink):
    def __init__(self, adapter):
        self.adapter = adapter
        self.next_step = 0        # the optimizer step the next forward pass belongs to
        self.kept = {}            # step -> the inputs of its (last) training forward pass
        self.skipped = None       # why the probe could not run, if it could not
        small = adapter.parameter_count(trainable_only=False) <= MAX_PARAMETERS
        self._handle = adapter.add_forward_pre_hook(adapter.model, self._on_forward) \
            if small else None

    # --- sink --------------------------------------------------------------------------
    def on_step(self, run, step):
        self.next_step = step + 1

    def close(self, run):
        self._remove_hook()

    # --- probe -------------------------------------------------------------------------
    def __call__(self, monitor, record):
        self._remove_hook()
        inputs = self.kept.get(record.step)
        self.kept = {}
        if inputs is None:
            return []
        from . import check_dependencies
        try:
            result = check_dependencies(self.adapter.model, inputs,
                                        _targets_of(monitor, record.step),
                                        loss_fn=_loss_fn_of(monitor))
        except Exception as error:    # inputs the probes cannot handle: nothing to say
            self.skipped = f"{type(error).__name__}: {error}"      # kept for whoever debugs
            return []
        for finding in result.findings:
            finding.step = record.step
        return [f for f in result.findings if f.severity != "info"]

    # --- the hook ------------------------------------------------------------------------
    def _on_forward(self, module, inputs):
        if not inputs or not self.adapter.is_training(module):
            return                    # keyword-only inputs, or an evaluation pass
        self.kept[self.next_step] = inputs[0] if len(inputs) == 1 else tuple(inputs)
        for step in sorted(self.kept)[:-KEPT_STEPS]:
            del self.kept[step]

    def _remove_hook(self):
        if self._handle is not None:
            self._handle.remove()
            self._handle = None


def _loss_fn_of(monitor):
    """The loss function given to ``watch(loss_fn=...)``, if any (it may shift the targets)."""
    losses = getattr(getattr(monitor, "around", None), "losses", None)
    return getattr(losses, "loss_fn", None)


def _targets_of(monitor, step):
    """The targets the loss received at ``step``, if the monitor saw that loss call."""
    observed = getattr(monitor.run, "observed", None)
    for seen_step, target in getattr(observed, "targets", None) or []:
        if seen_step == step:
            return target
    return None
