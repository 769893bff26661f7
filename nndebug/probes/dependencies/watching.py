"""The dependency probes inside ``nd.watch``: run once, early, on a recorded step.

``nd.watch`` gives every monitor one ``DependencyWatch``. It is both a sink and a probe
(see ``nndebug/monitor/__init__.py``, "How to extend"):

- as a sink, it keeps a reference to the inputs of each training forward pass, handed on by
  the monitor's one forward pre-hook on the model (``monitor/batches.py``): no copy, no host
  transfer; it stops listening as soon as the probe has run, or when the monitor closes. A
  model called by keyword only (``model(input_ids=..., labels=...)``) is heard through the
  same hook, which sees the keywords (torch; ``monitor/keyword_inputs.py`` picks the
  inputs among them). It counts optimizer steps, so that it knows which step an input
  batch belongs to;
- as a probe, called once on the first recorded step after the warm-up, it checks that
  step's inputs with the targets that reached the loss in the same step (when the monitor
  saw the loss call), the cheapest way that still answers:
    1. a ``Sequential`` of per-sample layers cannot mix samples: the data-only check only;
    2. float inputs with one label per sample: the two-sample screen (``screen.py``, about
       two training steps' worth on two samples); a model it clears gets the data-only
       check only;
    3. everything else, and whatever the screen does not clear: ``check_dependencies`` in
       full, on a private float64 copy, with the RNG forked and restored.
  Every path first reads a 4-D input batch for channels-last images reshaped into
  channels-first (INPUT_LAYOUT_SCRAMBLED, ``layout.py``: a few images, tens of microseconds).
  Every path also doubles the step's loss (GRADIENT_IGNORES_LOSS, ``loss_scale.py``: on a
  CPU model one forward and two backward passes on 8 samples, in place with everything put
  back; elsewhere two passes on a private float64 copy), when the model ran on the inputs
  and its graph holds a backward written in Python (``_only_torchs_own_backwards``).
  The user's training is bit-for-bit what it is unwatched.
"""
from ...monitor.keyword_inputs import bound_inputs, model_inputs
from ...monitor.sinks import Sink

KEPT_STEPS = 2
"""Input batches kept (references): the current step's, and the one before."""
SAMPLE_WISE_TYPES = {
    "Sequential", "Identity", "Flatten", "Linear", "Conv1d", "Conv2d", "Conv3d", "MaxPool1d",
    "MaxPool2d", "AvgPool1d", "AvgPool2d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d",
    "ReLU", "ReLU6", "LeakyReLU", "PReLU", "ELU", "SELU", "CELU", "GELU", "SiLU", "Mish",
    "Tanh", "Sigmoid", "Softplus", "Hardtanh", "Hardswish", "Hardsigmoid", "Softmax",
    "LogSoftmax", "Dropout", "Dropout1d", "Dropout2d", "AlphaDropout", "LayerNorm",
    "BatchNorm1d", "BatchNorm2d", "GroupNorm"}
"""Layers that compute each sample from that sample alone (batch norm: in eval mode, as the
probes run). A ``Sequential`` of only these, trained on one label per sample, cannot mix
samples nor see other positions: watch then skips the probes that run the model (tens of
milliseconds, a large share of a short run) and keeps the data-only check."""
MAX_PARAMETERS = 20_000_000
"""Larger models are not probed inside watch: the probe works on a float64 copy, and doubling
the memory of a big model in the middle of someone's training run is not a price to impose.
``nd.check_dependencies`` can still be called on them directly."""


class DependencyWatch(Sink):
    def __init__(self, adapter, batches):
        """``batches``: the monitor's ``BatchFingerprints``, whose forward pre-hook on the
        model also hands each training forward's inputs to this watch (one hook, not two)."""
        self.adapter = adapter
        self.next_step = 0        # the optimizer step the next forward pass belongs to
        self.kept = {}            # step -> the inputs of its (last) training forward pass
        self.skipped = None       # why the probe could not run, if it could not
        self.ran = None           # "data only", "screen" or "full check": what the probe did
        self.loss_scale = None    # what the loss-scale probe checked, or why it could not
        self._listeners = None
        if adapter.parameter_count(trainable_only=False) <= MAX_PARAMETERS:
            self._listeners = batches.forward_listeners
            self._listeners.append(self._on_forward)
        else:
            self.unneeded = ("on_step",)

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
        targets = _targets_of(monitor, record.step)
        if targets is None:
            targets = _picked_targets(monitor, self.adapter, inputs, record.step)
        return self._dependencies(monitor, record, inputs, targets) + \
            self._loss_scale(monitor, inputs, targets, record.step)

    def _loss_scale(self, monitor, inputs, targets, step):
        """GRADIENT_IGNORES_LOSS (``loss_scale.py``), on every path: the gradients of 2 x the
        step's loss must be twice those of the loss (see ``loss_scale.py``)."""
        from .loss_scale import probe_loss_scale
        nothing_to_test = _only_torchs_own_backwards(monitor, self.adapter, step)
        if nothing_to_test:
            self.loss_scale = nothing_to_test
            return []
        try:
            found, self.loss_scale = probe_loss_scale(self.adapter, inputs, targets,
                                                      _loss_fn_of(monitor))
        except Exception as error:        # inputs the probe cannot handle: nothing to say
            self.loss_scale = f"not checked: {type(error).__name__}: {error}"
            return []
        for finding in found:
            finding.step = step
        return found

    def _dependencies(self, monitor, record, inputs, targets):
        """The dependency probes, the cheapest way that still answers (see the module doc)."""
        from . import check_dependencies
        from .positions import positional_tensors
        from .screen import screen_is_clean
        layout = _input_layout(self.adapter, inputs, record.step)
        samples_on_dim1 = _samples_on_dim1(self.adapter, inputs, targets)   # batch 83
        layout = layout + _sequence_layout(self.adapter, inputs, samples_on_dim1, record.step)
        if _sample_wise(self.adapter) and _one_label_per_sample(self.adapter, targets):
            self.ran = "data only"
            return layout + _label_column_only(self.adapter, inputs, targets, record.step)
        if screen_is_clean(self.adapter, inputs, targets,
                           bool(positional_tensors(self.adapter))):
            self.ran = "screen"
            return layout + _label_column_only(self.adapter, inputs, targets, record.step)
        self.ran = "full check"
        # the targets given to forward for its loss are left out (_without_targets); a model
        # that cannot run without them reads them (a decoder fed its labels): probe as given
        model = self.adapter.model
        if samples_on_dim1:       # a (T, B, F) batch, probed batch-first through a wrapper
            model, inputs = _samples_first(model), inputs.transpose(0, 1)
        tries = [_without_targets(self.adapter, inputs, targets), inputs]
        for given in tries[:1] if tries[0] is inputs else tries:
            try:
                result = check_dependencies(model, given, targets,
                                            loss_fn=_loss_fn_of(monitor),
                                            ignore_index=_ignore_index_of(monitor, record.step,
                                                                          targets))
                break
            except Exception as error:    # inputs the probes cannot handle: nothing to say
                self.skipped = f"{type(error).__name__}: {error}"   # kept for whoever debugs
        else:
            return layout
        self.skipped = None
        for finding in result.findings:
            finding.step = record.step
        return layout + [f for f in result.findings if f.severity != "info"]

    # --- the hook ------------------------------------------------------------------------
    def _on_forward(self, module, inputs, kwargs):
        if not inputs:                # keyword-only inputs (evaluation passes never come here)
            kept = model_inputs(self.adapter, kwargs)
            if kept is not None:
                self._keep(kept)
            return
        both = bound_inputs(self.adapter, module, inputs, kwargs) if kwargs else None
        if both is not None:          # model(ids, attention_mask=mask): the mask goes along
            self._keep(both)
            return
        # one tensor is kept as it is; anything else as the tuple of positional inputs: a
        # lone dict or list is ONE argument (model(batch)), not model(**batch)/model(*batch)
        one_tensor = len(inputs) == 1 and self.adapter.is_tensor(inputs[0])
        self._keep(inputs[0] if one_tensor else tuple(inputs))

    def _keep(self, inputs):
        self.kept[self.next_step] = inputs
        for step in sorted(self.kept)[:-KEPT_STEPS]:
            del self.kept[step]

    def _remove_hook(self):
        if self._listeners is not None:
            self._listeners.remove(self._on_forward)
            self._listeners = None
        self.unneeded = ("on_step",)      # no more inputs to key by step: no call per step


def _only_torchs_own_backwards(monitor, adapter, step):
    """Why the loss-scale probe has nothing to test at ``step``, or None when it must run.

    A torch graph whose every node is one of torch's own operations backpropagates through
    torch's derivative formulas, linear in the gradient they receive by construction: 2 x
    the loss gives exactly twice the gradients, and passes that prove it cost a short run
    more than 1% (a forward and two backward passes, and putting everything back). Only a
    backward written in Python can ignore its ``grad_output``: a ``torch.autograd.Function``
    (its node shows in the graph, walked on the first recorded steps by ``graph_growth.py``)
    or a hook the user put on a module or a parameter (read here). A tensor hook on an
    intermediate result does not show in either; it is the one case this leaves out."""
    graph = getattr(getattr(monitor, "around", None), "graph", None)
    walked = getattr(graph, "python_backwards", {})
    if step not in walked or walked[step] is None or walked[step]:
        return None                   # minigrad, no graph seen, or a Python-written backward
    for _, module in adapter.named_modules():
        if adapter.backward_hooks(module):
            return None
    return "not needed: every backward in the loss's graph is one of torch's own operations"


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


def _picked_targets(monitor, adapter, inputs, step):
    """The labels a hand-written log-likelihood picked at ``step``, when no loss call showed
    its targets (``monitor/picked_targets.py``): of several picks (DPO scores a chosen and a
    rejected batch), the one whose offset against the kept inputs - the step's last forward -
    is measured, else the first; None when nothing was picked."""
    from .alignment import measure_offset
    from .batch import array_leaves, to_tree
    picked = getattr(getattr(monitor, "around", None), "picked_targets", None)
    candidates = picked.targets_at(step) if picked is not None else []
    if len(candidates) < 2:
        return candidates[0] if candidates else None
    try:
        x = array_leaves(to_tree(adapter, inputs))[0]   # the probe's own first input
    except Exception:              # inputs we cannot read: the first pick
        return candidates[0]
    for labels in candidates:
        if tuple(labels.shape) == tuple(x.shape[:2]) and \
                measure_offset(x, adapter.to_numpy(labels)) is not None:
            return labels
    return candidates[0]


def _ignore_index_of(monitor, step, targets):
    """The ``ignore_index`` of the loss call that received ``targets`` at ``step`` (-100,
    torch's default, when unknown). Padding the loss skips is no position of the task: a
    masked-LM's (batch, 5) targets padded with 0 under ``ignore_index=0`` matched a segment-id
    input's zeros at a shift of -3, every compared position a pad (real-bug batch 243's twin)."""
    shape = tuple(getattr(targets, "shape", ()))
    observed = getattr(monitor.run, "observed", None)
    ignored = {call.ignore_index for call in getattr(observed, "loss_calls", None) or []
               if call.step == step and call.target_shape == shape
               and getattr(call, "ignore_index", None) is not None}
    return ignored.pop() if len(ignored) == 1 else -100


def _without_targets(adapter, inputs, targets):
    """The inputs less those that are the loss's targets: ``model(x, y)`` computing its loss
    inside forward (nanoGPT's ``forward(idx, targets)``). The targets are no input of the
    computation the probes look at: perturbing them moves only the loss, and (B, T) targets
    with as many positions as rows look like an adjacency matrix, which makes the probes
    stand down. A positional one becomes None (the model is called as for generation), a
    keyword one is left out."""
    if targets is None:
        return inputs
    try:
        wanted = adapter.to_numpy(targets).ravel()
    except Exception:
        return inputs

    def is_targets(value):
        if not adapter.is_tensor(value):
            return False
        array = adapter.to_numpy(value)
        return array.size == wanted.size and bool((array.ravel() == wanted).all())
    if isinstance(inputs, dict):
        kept = {k: v for k, v in inputs.items() if not is_targets(v)}
        return kept or inputs
    if isinstance(inputs, tuple) and len(inputs) > 1:
        return (inputs[0],) + tuple(None if is_targets(v) else v for v in inputs[1:])
    return inputs


def _sample_wise(adapter):
    """Whether every module is a layer of SAMPLE_WISE_TYPES, used as those layers are."""
    for _, module in adapter.named_modules():
        kind = adapter.module_type(module)
        if kind not in SAMPLE_WISE_TYPES:
            return False
        if kind == "Flatten" and getattr(module, "start_dim", 1) == 0:
            return False                  # flattens the batch dimension away
        if kind in ("Softmax", "LogSoftmax") and getattr(module, "dim", -1) in (0, None):
            return False                  # normalises across the batch
    return True


def _one_label_per_sample(adapter, targets):
    if targets is None:
        return True
    shape = getattr(targets, "shape", None)
    return shape is not None and len(shape) <= 1


def _input_layout(adapter, inputs, step):
    """INPUT_LAYOUT_SCRAMBLED from a 4-D input batch (``layout.py``): only the few images the
    check reads are taken from the device."""
    from .layout import images_read, probe_input_layout
    shape = tuple(getattr(inputs, "shape", ()))
    if len(shape) != 4 or not adapter.is_tensor(inputs):
        return []
    try:
        found = probe_input_layout(adapter.to_numpy(inputs[:images_read(shape)]))
    except Exception:             # an input the check cannot read: nothing to say
        return []
    for finding in found:
        finding.step = step
    return found


def _samples_on_dim1(adapter, inputs, targets):
    """Whether a 3-D torch input batch is (time, batch, features): one target per sample
    lines up with its axis 1, not its axis 0 (``sequence_layout.batch_on_dim1``)."""
    from .sequence_layout import batch_on_dim1
    if adapter.framework != "torch" or not adapter.is_tensor(inputs) or targets is None:
        return False
    return batch_on_dim1(tuple(inputs.shape), getattr(targets, "shape", None))


def _samples_first(model):
    """``model`` taking a batch-first batch: the probes perturb samples along axis 0."""
    import torch

    class SamplesFirst(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.model = inner

        def forward(self, x, *rest, **kwargs):
            return self.model(x.transpose(0, 1), *rest, **kwargs)
    return SamplesFirst(model)


def _reads_sequences(model):
    """The model holds a layer that reads a time axis (recurrent, 1-D convolution, attention):
    only then does a 3-D batch have one to scramble. Regions, patches or set elements side by
    side on axis 1 are no series, and their order may read rough one way and smooth another
    by accident (a region classifier's 2x2 patches did)."""
    from torch import nn
    kinds = (nn.RNNBase, nn.Conv1d, nn.MultiheadAttention)
    return any(isinstance(module, kinds) for module in model.modules())


def _sequence_layout(adapter, inputs, samples_on_dim1, step):
    """INPUT_LAYOUT_SCRAMBLED from a 3-D float input batch (``sequence_layout.py``): only the
    values the check reads are taken from the device."""
    from .sequence_layout import probe_sequence_layout
    if adapter.framework != "torch" or not adapter.is_tensor(inputs) or \
            inputs.ndim != 3 or not inputs.is_floating_point() or \
            not _reads_sequences(adapter.model):
        return []
    shape = tuple(int(s) for s in inputs.shape)
    planes, rows = shape[1] * shape[2], shape[2]

    def read(index):
        import torch
        at = torch.from_numpy(index).to(inputs.device)
        x = inputs.detach()
        if x.is_contiguous():     # a view of the memory: one gather of the values read
            return x.view(-1)[at].cpu().numpy()
        return x[at // planes, (at // rows) % shape[1], at % rows].cpu().numpy()
    try:
        found = probe_sequence_layout(read, shape, 1 if samples_on_dim1 else 0)
    except Exception:             # an input the check cannot read: nothing to say
        return []
    for finding in found:
        finding.step = step
    return found


def _label_column_only(adapter, inputs, targets, step):
    """The check that needs no model run: an input column that is the label."""
    from .alignment import probe_label_column
    if targets is None or not adapter.is_tensor(inputs):
        return []
    try:
        found = probe_label_column(adapter.to_numpy(inputs), adapter.to_numpy(targets))
    except Exception:
        return []
    for finding in found:
        finding.step = step
    return found
