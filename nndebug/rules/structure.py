"""Rules about how the model is put together: parts it does not register, frozen layers that
were never trained, batch norm on batches too small for its statistics or with its momentum
in TensorFlow's convention.

They read ``run.observed`` (``nndebug.observed``). The checks are plain functions on shapes
and numbers (``looks_freshly_initialised``, ``tiny_batches``,
``inverted_momenta``), tested alone.

Sources named next to the thresholds (besides those in ``rules/__init__.py``):
  [groupnorm] Wu & He, "Group Normalization", ECCV 2018, Fig. 1: ResNet-50 on ImageNet,
              batch norm's error rises from 23.6% (32 images per batch) to 24.8% (8),
              27.3% (4) and 34.7% (2); group norm does not depend on the batch
  [torchinit] PyTorch's default initialisations: Linear/Conv weights kaiming_uniform_(a=sqrt(5)),
              i.e. U(-1/sqrt(fan_in), 1/sqrt(fan_in)), biases the same bound; norm layers
              weight 1, bias 0; nn.init's kaiming/xavier normal and uniform; N(0, 0.02) as in
              BERT/GPT-2; nn.Embedding N(0, 1)
  [vision2164] https://github.com/pytorch/vision/issues/2164: a detection backbone's first
              layers frozen although no pretrained weights were loaded ("This resulted in
              poor AP") while the layers above them trained normally
  [torchbn]   PyTorch's BatchNorm docs: running = (1 - momentum) * running + momentum * batch,
              default momentum 0.1 (None: a cumulative average). TensorFlow/Keras's
              BatchNormalization weighs the OLD value instead: running = momentum * running +
              (1 - momentum) * batch, default 0.99; kept as it is in PyTorch, the running
              statistics become (almost) the last batch's
  [tacotron19] https://github.com/r9y9/tacotron_pytorch/issues/19: BatchNorm1d built with
              TensorFlow's default momentum, "simply my mistake"
  [fixclassifier] Hoffer et al., "Fix your classifier: the marginal value of training the
              last weight layer", ICLR 2018: a fixed (untrained) final layer on purpose
"""
import math
from collections import Counter

from ..findings import Finding
from .context import MAJORITY, first_training_batches, fmt, judged_only, short_list
from .curve import learning_poor
from .graph import rule

# --- frozen parameters ------------------------------------------------------------------
FRESH_MIN_VALUES = 256        # [measured] fewer values cannot be told from a fresh draw: a
                              # pretrained 16x1x3x3 stem (144 values) sits at the 99th percentile
                              # of fresh kaiming-normal draws in std and kurtosis jointly (40,000
                              # simulated tensors); 64 let it pass as fresh
FRESH_SIGMAS = 3.0            # [design] a fresh tensor's sample statistics stay within 3
                              # standard errors of the initialiser's (errors below, per value
                              # count n): anything further has moved, i.e. was trained
FRESH_MEAN_TOLERANCE = 0.25   # [design] |mean| below a quarter of the std (zero-mean inits)
UNIFORM_KURTOSIS = 1.8        # [torchinit] kurtosis of a uniform init (torch's default) ...
NORMAL_KURTOSIS = 3.0         # [torchinit] ... and of a normal one (kaiming/xavier normal)
FRESH_STEM_MIN_VALUES = math.ceil((FRESH_SIGMAS * (2.4 + math.sqrt(24)) /   # [design]
                                   (NORMAL_KURTOSIS - UNIFORM_KURTOSIS)) ** 2)
                              # (real-bug batch 82) values a frozen weight in front of
                              # trained layers needs before its fresh look alone makes
                              # FROZEN_PARAMETERS a warning on a run that learns: the count
                              # (333) at which the uniform and normal kurtosis bands (3
                              # standard errors each) stop overlapping; below it the moments
                              # cannot tell a uniform draw from a normal one, and a small
                              # pretrained encoder's briefly trained 32x8 embedding (256
                              # values, kurtosis 2.3) passed as a fresh normal draw
GPT_STD = 0.02                # [torchinit] N(0, 0.02)
FROZEN_IDS_MARGIN = 0.3       # [design] real-bug batch 63: held-out accuracy a probe on the
                              # ids themselves must gain over one on a frozen table's rows
                              # (and over the commonest class) before the table is what
                              # holds the model back (0.57 on CS224n#1's frozen vectors)
FROZEN_LOSS_LEFT = 0.5        # [design] and the loss at the end still above this share of
                              # its start (a model that learned well with its frozen table is
                              # not reported: frozen GloVe is a common, sound choice)
# --- batch norm ------------------------------------------------------------------------------
TINY_BATCH = 4                # [groupnorm] at most 4 samples per batch-norm batch: error +3.7
                              # points at 4, +11 at 2 (ResNet-50); larger spatial maps do not
                              # help, the samples are what the statistics average over
OCCASIONAL_TINY = 2           # [design] issue #10: batch norm on "batches of 1-2 samples, e.g.
                              # the last batch of an epoch": a batch this small on ANY step
                              # (monitor/tiny_norm_batches.py keeps those), even when most
                              # batches are large
INVERTED_MOMENTUM = 0.5       # [torchbn] the new batch weighs at least half of every update:
                              # the running statistics are no average any more. Healthy
                              # PyTorch values are 0.1 (default) down to 0.01 (1 - 0.99 of a
                              # port done right); TensorFlow's 0.9-0.999 land above [tacotron19]
# modules whose behaviour depends on train()/eval(): not reaching them is a bug even when
# they hold no parameters
MODE_DEPENDENT = {"Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout",
                  "FeatureAlphaDropout", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d",
                  "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "SyncBatchNorm"}


# --- plain checks ------------------------------------------------------------------------------
def initialiser_stds(fan_in, fan_out, shape):
    """{initialiser: the std of the values it draws} for a tensor with these fans, among the
    initialisers that draw values of this ``shape`` ("uniform" or "normal")."""
    out = {}
    if shape == "uniform" and fan_in > 0:
        out["torch default (uniform, 1/sqrt(fan_in))"] = 1 / math.sqrt(3 * fan_in)
        out["kaiming (He) uniform"] = math.sqrt(2 / fan_in)
        if fan_out > 0:
            out["xavier (Glorot) uniform"] = math.sqrt(2 / (fan_in + fan_out))
    if shape == "normal":
        out["normal(0, 0.02)"] = GPT_STD
        out["normal(0, 1) (nn.Embedding's default)"] = 1.0
        if fan_in > 0:
            out["kaiming (He) normal"] = math.sqrt(2 / fan_in)
        if fan_out > 0:
            out["kaiming (He) normal, fan_out"] = math.sqrt(2 / fan_out)
        if fan_in > 0 and fan_out > 0:
            out["xavier (Glorot) normal"] = math.sqrt(2 / (fan_in + fan_out))
    return out


def looks_freshly_initialised(tensor):
    """The name of the initialisation ``tensor`` (a ``FrozenTensor``) still looks like, or None.

    Constant 0 or 1 (biases, norm layers' weights) counts as fresh. Otherwise the values must
    be numerous enough, centred, shaped like a uniform or a normal draw (kurtosis; a uniform
    one also bounded by sqrt(3) std), and spread like one of the usual initialisers for the
    tensor's fan-in and fan-out, each within ``FRESH_SIGMAS`` standard errors of sampling
    noise. Training moves weights away from all of these at once.
    """
    n = math.prod(tensor.shape) if tensor.shape else 1
    n = min(n, tensor.measured) if tensor.measured else n     # a sample of a large tensor
    if tensor.std == 0:
        if tensor.mean in (0.0, 1.0):
            return f"constant {tensor.mean:g}"
        return None
    if n < FRESH_MIN_VALUES or not math.isfinite(tensor.kurtosis):
        return None
    if abs(tensor.mean) > FRESH_MEAN_TOLERANCE * tensor.std:
        return None
    root_n = math.sqrt(n)
    # standard errors of the sample kurtosis: 2.4/sqrt(n) for a uniform, sqrt(24/n) for a normal
    uniform = abs(tensor.kurtosis - UNIFORM_KURTOSIS) <= FRESH_SIGMAS * 2.4 / root_n and \
        tensor.absmax <= math.sqrt(3) * tensor.std * (1 + FRESH_SIGMAS * 0.45 / root_n)
    normal = abs(tensor.kurtosis - NORMAL_KURTOSIS) <= FRESH_SIGMAS * math.sqrt(24) / root_n
    spread = FRESH_SIGMAS * 0.71 / root_n      # the standard error of a sample std, relative
    for shape, matches in (("uniform", uniform), ("normal", normal)):
        if not matches or not _units_alike(tensor, shape) or not _inputs_alike(tensor, shape):
            continue
        for name, std in initialiser_stds(tensor.fan_in, tensor.fan_out, shape).items():
            if abs(tensor.std - std) <= spread * std:
                return name
    return None


def _units_alike(tensor, shape):
    """Whether the squared norms of the tensor's rows (one per output unit) spread as a
    fresh ``shape`` draw's would: a relative spread of sqrt((kurtosis - 1) / values per
    row), give or take ``FRESH_SIGMAS`` standard errors (1 / sqrt(2 rows) of it, relative;
    simulated: 0.1-0.4% of fresh draws go further on either side, for 3 to 1024 rows of 8
    to 512 values). Training gives units different sizes: a conv weight trained with Adam
    had the std and kurtosis of a kaiming-normal draw but a spread of 0.25-0.32 where a
    draw has 0.12 (with a bound of 0.16). Rows made the same length on purpose spread far
    less than a draw: word vectors normalised to one norm (loaded as a frozen table, seeds
    of from_pretrained_called_on_layer_instance shifted by 4000) had a normal draw's std
    and kurtosis but a spread of 0.04 where a draw has 0.25. Runs saved before it was taken
    have no spread: the moments decide alone there."""
    value, rows = getattr(tensor, "unit_spread", None), getattr(tensor, "unit_rows", 0)
    if value is None or rows < 2 or not math.isfinite(value):
        return True
    kurtosis = UNIFORM_KURTOSIS if shape == "uniform" else NORMAL_KURTOSIS
    expected = math.sqrt((kurtosis - 1) / max(1, math.prod(tensor.shape[1:])))
    margin = FRESH_SIGMAS / math.sqrt(2 * rows)
    return expected * (1 - margin) <= value <= expected * (1 + margin)


def _inputs_alike(tensor, shape):
    """``_units_alike`` over the tensor's columns (one per input position of a row): fresh
    draws give every input the same squared norm, sqrt((kurtosis - 1) / rows) relative
    spread; training moves the weights of inputs that carry signal and not those of inputs
    that never do (real-bug batch 195: a first layer pretrained for 300 steps on the digits,
    frozen for test-time adaptation, kept a fresh xavier-normal draw's std, kurtosis and row
    spread, and its columns spread 0.33 where a draw has 0.18). Runs saved before it was
    taken have no column spread."""
    value, columns = getattr(tensor, "input_spread", None), getattr(tensor, "input_columns", 0)
    if value is None or columns < 2 or not math.isfinite(value) or not tensor.shape:
        return True
    kurtosis = UNIFORM_KURTOSIS if shape == "uniform" else NORMAL_KURTOSIS
    rows = max(1, tensor.shape[0])
    expected = math.sqrt((kurtosis - 1) / rows)
    # the standard error of a sample spread, relative, is sqrt((kurtosis of the squares - 1)
    # / (4 n)); a column's squared norm over few rows is a chi-square of ``rows`` degrees,
    # kurtosis 3 + 12 / rows: short columns (an output layer of 2-5 classes) spread twice
    # as widely as 1 / sqrt(2 n) says (simulated: up to 3% of fresh normal draws of 2-10 rows
    # fell outside that margin, none above 0.5% with this one)
    margin = FRESH_SIGMAS * math.sqrt((0.5 + 3 / rows) / columns)
    return expected * (1 - margin) <= value <= expected * (1 + margin)


def tiny_batches(norm_batches):
    """{layer: (samples, values per channel, first step)} for the batch-norm layers whose
    training batches held at most TINY_BATCH samples in most of their recorded calls."""
    by_layer = {}
    for batch in norm_batches:
        by_layer.setdefault(batch.layer, []).append(batch)
    out = {}
    for layer, batches in by_layer.items():
        tiny = [b for b in batches if b.samples <= TINY_BATCH]
        if tiny and len(tiny) >= MAJORITY * len(batches):
            typical = sorted(tiny, key=lambda b: b.samples)[len(tiny) // 2]
            out[layer] = (typical.samples, typical.values_per_channel, tiny[0].step)
    return out


def occasional_tiny_batches(rows, steps_run=None):
    """{layer: (samples, values per channel, first step, steps)} for the batch-norm layers
    that trained, on some step (recorded or not), on a batch of at most OCCASIONAL_TINY
    samples (``monitor/tiny_norm_batches.py``: the last batch of an epoch without
    drop_last). ``steps``: how many different steps did. A batch seen at ``steps_run`` (the
    run's step count) or later came after the last step: no training, only forwards left in
    training mode (VALIDATION_IN_TRAIN_MODE's business, ``after_training.py``)."""
    out = {}
    for step, layer, samples, values in rows:
        if samples > OCCASIONAL_TINY or (steps_run is not None and step >= steps_run):
            continue
        if layer not in out:
            out[layer] = [samples, values, step, set()]
        out[layer][3].add(step)
    return {layer: (s, v, first, len(steps)) for layer, (s, v, first, steps) in out.items()}


def inverted_momenta(norm_settings, trained_layers):
    """{layer: momentum} of the batch-norm layers whose momentum is INVERTED_MOMENTUM or more,
    among ``trained_layers`` (those seen normalising a batch in training mode: only there do
    the running statistics move). None (a cumulative average) and layers without running
    statistics are fine."""
    return {s.layer: s.momentum for s in norm_settings
            if s.layer in trained_layers and s.tracks_running_stats and
            s.momentum is not None and s.momentum >= INVERTED_MOMENTUM}


# --- the rules ----------------------------------------------------------------------------------
def _observed(ctx):
    return getattr(ctx.run, "observed", None)


@rule(produces="UNREGISTERED_PARAMETERS",
      explains={"LOSS_PLATEAU", "LOSS_AT_CHANCE", "NO_GRADIENT"})
def unregistered_parameters(ctx):
    """UNREGISTERED_PARAMETERS: tensors that get gradients, or modules that run in forward,
    without being part of the model: the optimizer never updates them and eval() never reaches
    them."""
    observed = _observed(ctx)
    if observed is None:
        return None
    empty = model_without_parameters(ctx, observed)     # real-bug batch 301
    if empty is not None:
        return empty
    judged_steps = {r.step for r in ctx.run.records}
    seen = [u for u in observed.unregistered
            if not judged_steps or judged_steps.intersection(u.steps)]
    trained = [u for u in seen if u.shapes and u.kind == "module"]
    tensors = [u for u in seen if u.kind == "tensor"]
    mode = [u for u in seen if u.kind == "module" and not u.shapes and u.type in MODE_DEPENDENT]
    if not (trained or tensors or mode):
        return None
    parts, uses = [], trained + tensors + mode
    for u in trained + mode:
        made = "built anew on every call of forward" if u.new_each_step else "not registered"
        origin = f"called from {u.called_from or 'the model'}'s forward"
        parts.append(f"{u.count} x {u.type} ({made}, {origin}" +
                     (f", parameters {short_list(tuple(s) for s in u.shapes)})" if u.shapes
                      else ")"))
    for u in tensors:
        parts.append(f"{u.count} x {u.type} of shape {tuple(u.shapes[0]) if u.shapes else '?'} that takes "
                     "part in the output")
    consequences = []
    if trained or tensors:
        consequences.append("their parameters are not in model.parameters(), so an optimizer "
                            "built from it never updates them, and state_dict() does not save "
                            "them")
    if mode:
        consequences.append("train()/eval() never reach them, so dropout stays on (or batch "
                            "norm keeps using batch statistics) when the model is evaluated")
    step = min((min(u.steps) for u in uses if u.steps), default=None)
    where = ", ".join(dict.fromkeys(u.called_from or "(model)" for u in uses))
    if not trained and not mode and mirrors_model_parameters(tensors, ctx.run.params):
        return copies_of_the_weights(tensors, parts, where, step)
    return Finding(
        code="UNREGISTERED_PARAMETERS", severity="warning", where=where, step=step,
        message=f"Parts the model does not register take part in its forward pass: "
                f"{short_list(parts, 3)}. " + "; ".join(consequences).capitalize() + ".",
        evidence={"unregistered": [{"kind": u.kind, "type": u.type,
                                    "shapes": [list(s) for s in u.shapes],
                                    "called_from": u.called_from, "count": u.count,
                                    "new_each_step": u.new_each_step,
                                    "steps": u.steps[:10]} for u in uses]},
        fix="Build every layer in __init__ and assign it to self (not inside forward); keep "
            "lists of layers in nn.ModuleList / nn.ModuleDict (not a Python list or dict) and "
            "tensors to learn in nn.Parameter attributes or nn.ParameterList.")


def model_without_parameters(ctx, observed):
    """(real-bug batch 301) UNREGISTERED_PARAMETERS when the watched model registers no
    parameter at all while the watched optimizer holds some: whatever it trains lives
    outside the model - sub-networks kept in a plain Python list or dict (an ensemble's
    members: pytorch/pytorch#23309, "model.eval() with ensemble of CNN is not extended to the
    sub models"). A model of nothing is never what a training loop means to watch, so no
    forward needs to be seen for this; the optimizer's own count says it. A model whose
    parameters are all frozen (``observed.frozen``; a training-prep helper that froze the
    adapters too, batch 82) registers them and is FROZEN_PARAMETERS' business."""
    held = sum(int(s.parameters or 0) for s in observed.optimizer_settings)
    if ctx.run.params or observed.frozen or not held:
        return None           # run.params holds the trainable ones only: frozen ones count too
    return Finding(
        code="UNREGISTERED_PARAMETERS", severity="warning", where="(model)", step=None,
        message=f"The watched model registers no parameters at all, while its optimizer "
                f"holds {held} parameter tensor(s): the layers it trains live outside the "
                "model (kept in a plain Python list or dict, or built elsewhere). "
                "model.parameters(), state_dict() and train()/eval() never reach them: a "
                "saved checkpoint is empty and dropout stays on when the model is evaluated.",
        evidence={"model_parameters": 0, "optimizer_parameters": held},
        fix="Keep sub-networks in nn.ModuleList / nn.ModuleDict (not a Python list or dict) "
            "and assign layers to attributes of the model; build the optimizer from "
            "model.parameters().")


@rule(produces="FROZEN_PARAMETERS", explains={"LOSS_PLATEAU", "LOSS_AT_CHANCE"})
def frozen_parameters(ctx):
    observed = _observed(ctx)
    if observed is None or not observed.frozen:
        return None
    fresh = []
    for tensor in observed.frozen:
        if tensor.changed:
            continue          # it moved during the run: trained some other way, not frozen
        if tensor.unfrozen:
            continue          # unfrozen during the run: not frozen (OPTIMIZER_MISSING_PARAMS
                              # says when the optimizer never got it)
        how = looks_freshly_initialised(tensor)
        if how is not None:
            fresh.append((tensor, how))
    # a frozen layer is judged by its weight: constant vectors (biases, norm scales) alone
    # are not enough (a frozen pretrained layer keeps its own, also fresh-looking, bias)
    weights = [(t, how) for t, how in fresh if len(t.shape) >= 2]
    if not weights:
        return frozen_table_hides_ids(ctx, observed)
    poor = learning_poor(ctx)
    # a random layer frozen in front of trained ones (a stem, a backbone: what every trained
    # layer builds on) is what a backbone frozen before its weights were loaded looks like
    # [vision2164]; a fixed random last layer is a known deliberate design [fixclassifier]
    stem = [t.name for t, _ in weights if t.before_trainable and
            math.prod(t.shape) >= FRESH_STEM_MIN_VALUES]
    names = [t.name for t, _ in fresh]
    total = sum(math.prod(t.shape) for t, _ in fresh)
    if poor:
        why = ", and the loss is not improving well."
    elif stem:
        why = (", and trained layers are built on top of them: they only ever see these "
               "random features (a backbone frozen before its weights were loaded).")
    else:
        why = " (fine if they are meant to stay random)."
    return Finding(
        code="FROZEN_PARAMETERS", severity="warning" if poor or stem else "info",
        where=", ".join(dict.fromkeys(n.rsplit(".", 1)[0] for n in names)), step=0,
        message=f"{len(fresh)} frozen parameter tensor(s) (requires_grad=False: "
                f"{short_list(names)}, {total} values) still look exactly like a fresh random "
                f"initialisation ({weights[0][1]} for {weights[0][0].name}) and never changed "
                "during the run: these layers were never trained" + why,
        evidence={"frozen": names, "values": total,
                  "looks_like": {t.name: how for t, how in fresh},
                  "learning_poor": poor, "in_front_of_trained_layers": stem,
                  "stats": {t.name: {"std": t.std, "kurtosis": t.kurtosis, "fan_in": t.fan_in}
                            for t, _ in weights[:5]}},
        fix="Freeze only layers that hold pretrained weights: load the weights first (check "
            "that load_state_dict found them), or set requires_grad=True on these layers. "
            "Random features kept fixed on purpose (random Fourier features, a reservoir) "
            "belong in a buffer (register_buffer), not in a frozen parameter.")


def frozen_table_hides_ids(ctx, observed):
    """FROZEN_PARAMETERS for a frozen embedding that is not a fresh draw (pretrained
    vectors frozen by ``from_pretrained``'s default, a constant table): a held-out probe
    reads the targets from the ids themselves far better than from the table's rows, no
    small shift of the ids mends the rows (EMBEDDING_ROWS_MISALIGNED_WITH_IDS' case), and
    the loss kept more than FROZEN_LOSS_LEFT of its start (``run.observed.
    frozen_table_probes``, monitor/categorical_inputs.py; real-bug batch 63)."""
    rows = [r for r in (getattr(observed, "frozen_table_probes", None) or [])
            if r[6] is not None and r[6] >= r[3] + FROZEN_IDS_MARGIN and
            r[6] >= r[7] + FROZEN_IDS_MARGIN and r[5] < r[3] + FROZEN_IDS_MARGIN]
    summary = ctx.summary
    if not rows or summary is None or summary["start"] <= 0 or \
            summary["tail"] < FROZEN_LOSS_LEFT * summary["start"]:
        return None
    layer, samples, classes, at_zero, _, _, ids_accuracy, majority = rows[0]
    return Finding(
        code="FROZEN_PARAMETERS", severity="warning", where=layer, step=0,
        message=f"{layer} is a frozen embedding (requires_grad=False: nn.Embedding."
                "from_pretrained freezes by default) whose vectors hide what its ids tell: a "
                f"held-out probe reads the targets from the ids themselves "
                f"{fmt(100 * ids_accuracy)}% right, from the table's rows "
                f"{fmt(100 * at_zero)}% ({samples} samples, {classes} classes, commonest "
                f"{fmt(100 * majority)}%), and the loss is still {fmt(summary['tail'])} "
                f"(from {fmt(summary['start'])}). The pretrained vectors do not separate "
                "what this task needs, and frozen they never will.",
        evidence={"layer": layer, "probe_ids": ids_accuracy, "probe_rows": at_zero,
                  "samples": samples, "classes": classes, "majority": majority,
                  "loss_start": summary["start"], "loss_end": summary["tail"],
                  "margin": FROZEN_IDS_MARGIN},
        fix="Fine-tune the table: nn.Embedding.from_pretrained(vectors, freeze=False) (or "
            "weight.requires_grad_(True) and give it to the optimizer), perhaps at a smaller "
            "learning rate than the layers above it.")


@rule(produces="BATCHNORM_TINY_BATCH",
      explains={"LOSS_OSCILLATING", "LOSS_PLATEAU", "LOSS_DIVERGING"})
def batchnorm_tiny_batch(ctx):
    observed = _observed(ctx)
    if observed is None or not observed.norm_batches:
        return None
    tiny = tiny_batches(judged_only(ctx, observed.norm_batches))
    if not tiny:
        return _occasional_tiny_batch(observed, ctx.run.n_steps)
    layer, (samples, values, step) = next(iter(tiny.items()))
    return Finding(
        code="BATCHNORM_TINY_BATCH", severity="warning", where=layer, step=step,
        message=f"Batch norm {layer} trains on batches of {samples} sample(s): each channel's "
                f"mean and variance come from {values} value(s) of {samples} sample(s), so the "
                "training statistics are noise and the running averages used in eval mode "
                "describe something else; evaluation accuracy suffers (batch norm needs "
                f"more than {TINY_BATCH} samples per batch).",
        evidence={"layers": {name: {"samples": s, "values_per_channel": v}
                             for name, (s, v, _) in tiny.items()},
                  "threshold_samples": TINY_BATCH},
        fix="Use larger batches (16 or more), or replace BatchNorm with GroupNorm/LayerNorm, "
            "which do not depend on the batch (or accumulate gradients over small batches "
            "and keep batch norm in eval mode).")


def _occasional_tiny_batch(observed, steps_run):
    """BATCHNORM_TINY_BATCH for batches that are tiny now and then only: most batches are
    large enough, but some step (the last of an epoch) gave a batch norm one or two samples."""
    occasional = occasional_tiny_batches(getattr(observed, "tiny_norm_batches", None) or [],
                                         steps_run)
    if not occasional:
        return None
    layer, (samples, values, step, steps) = next(iter(occasional.items()))
    return Finding(
        code="BATCHNORM_TINY_BATCH", severity="warning", where=layer, step=step,
        message=f"Batch norm {layer} trained on a batch of {samples} sample(s) at step {step}"
                f"{f' and on {steps - 1} other step(s)' if steps > 1 else ''} (most of its "
                "batches are larger: a last, partial batch of an epoch). Each channel's mean "
                f"and variance came from {values} value(s) of {samples} sample(s): that "
                "step's normalisation is noise, and the running statistics eval mode uses "
                "take that noise in, at the end of every epoch, right before validation.",
        evidence={"layers": {name: {"samples": s, "values_per_channel": v, "steps": n}
                             for name, (s, v, _, n) in occasional.items()},
                  "threshold_samples": OCCASIONAL_TINY},
        fix="Drop the last partial batch (DataLoader(..., drop_last=True)), or choose a batch "
            "size that divides the dataset; or replace BatchNorm with GroupNorm/LayerNorm.")


@rule(produces="BATCHNORM_MOMENTUM_INVERTED", explains={"OVERFITTING"})
def batchnorm_momentum_inverted(ctx):
    """BATCHNORM_MOMENTUM_INVERTED: a batch norm's momentum written in TensorFlow's convention
    (0.99), so its running statistics are almost only the last batch's."""
    observed = _observed(ctx)
    if observed is None or not getattr(observed, "norm_settings", None):
        return None
    first_step = first_training_batches(ctx)
    inverted = inverted_momenta(observed.norm_settings, first_step)
    if not inverted:
        return None
    layer, momentum = next(iter(inverted.items()))
    return Finding(
        code="BATCHNORM_MOMENTUM_INVERTED", severity="warning", where=layer,
        step=first_step[layer],
        message=f"Batch norm {layer} has momentum={momentum:g}: in PyTorch the momentum is the "
                "weight of the NEW batch (running = (1 - momentum) * running + momentum * "
                f"batch), so the last training batch makes up {momentum:.0%} of its running mean "
                "and variance. In eval mode the model normalises with one batch's "
                "statistics, and evaluation accuracy suffers while training looks fine. "
                f"{momentum:g} is TensorFlow/Keras's convention, where it weighs the old value.",
        evidence={"layers": dict(inverted), "threshold": INVERTED_MOMENTUM},
        fix="Use 1 - tf_momentum (0.01 for TensorFlow's 0.99), or PyTorch's default 0.1; "
            "momentum=None keeps a cumulative average.")


def mirrors_model_parameters(tensors, params):
    """True when the unregistered tensors cover the model's own parameters shape for shape
    (one or more of each): copies of its weights run the forward pass in their place - a
    deepcopy adapted in place, weights written through ``.data``, detached copies as a
    meta-learning inner loop's start (real-bug batch 86)."""
    own = Counter(tuple(p.shape) for p in params)
    seen = Counter()
    for u in tensors:
        if u.shapes:
            seen[tuple(u.shapes[0])] += u.count
    return bool(own) and all(seen[shape] >= n for shape, n in own.items())


def copies_of_the_weights(tensors, parts, where, step):
    return Finding(
        code="UNREGISTERED_PARAMETERS", severity="warning", where=where, step=step,
        message=f"Copies of the model's weights run its forward pass in their place: "
                f"{short_list(parts, 3)} - leaf tensors shaped like each of the model's own "
                "parameters, outside model.parameters(). The loss's gradient stops at the "
                "copies and never reaches the model's parameters, so its optimizer moves "
                "nothing: a meta-learning inner loop adapting a copy.deepcopy(model), writing "
                "its steps through param.data, or starting from detached copies "
                "(higher's copy_initial_weights=True) trains the copies, not the model.",
        evidence={"unregistered": [{"kind": u.kind, "type": u.type,
                                    "shapes": [list(s) for s in u.shapes],
                                    "count": u.count, "steps": u.steps[:10]}
                                   for u in tensors], "mirrors_model_parameters": True},
        fix="Build the adapted weights from the model's own parameters with differentiable "
            "ops: fast = {n: p - lr * g for (n, p), g in zip(model.named_parameters(), "
            "torch.autograd.grad(loss, model.parameters(), create_graph=True))} and "
            "torch.func.functional_call(model, fast, x) - no deepcopy, .data or .detach() "
            "on the way (higher: copy_initial_weights=False).")
