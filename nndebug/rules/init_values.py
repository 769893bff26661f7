"""Initialisations that give a layer values no initialiser means to give it (real-bug
batch 80: weight initialisation in practice).

SYMMETRIC_INIT: a weight matrix whose rows (its units) started exactly equal and are still
exactly equal after training moved them. ``nn.init.constant_(w, 0.5)`` on every layer
(stats.stackexchange.com/questions/45087: "Symmetry breaking. If all weights start with equal
values ... all hidden units connected directly to the output units will get identical error
signals"): every unit of the layer computes the same function, gets the same gradient and
the same update, for ever; the layer is worth one unit. Read from
``run.observed.identical_units`` (``monitor/identical_units.py``). A zero-initialised head or
residual branch starts with equal rows too, but the loss parts them at the first step (each
class's row gets its own error): only rows still equal after they moved are named. Rows that
never moved (a frozen constant filter, a layer no gradient reaches) are left to the rules
for frozen layers and missing gradients.

NORM_GAIN_INITIALISED_NEAR_ZERO: most normalisation layers' gains (their ``weight``, 1 by
default) started at a small random value: rms under NORM_GAIN_LOW, but not exactly zero. An
``apply(init)`` function that draws "every weight" from N(0, 0.02) reaches the layer norms
too (huggingface/transformers#143: ``module.gamma.data.normal_(mean=0.0,
std=config.initializer_range)`` in ``init_bert_weights``, "will lead to bad convergence"):
each norm multiplies its normalised output by ~0.02 with a random sign per feature, so the
layers after it start reading a signal 50x too small, half of it flipped. Read from the first
record's parameter norms and the first update's norm (|w0| <= |w1| + |w1 - w0|). Gains
started at exactly zero (a zero-initialised last norm of a residual block, ``zero_init_residual``
- a deliberate choice) are left out: their norm after the first step is no more than the
step. No initialiser and no trained network gives most of its norms a gain this small, so
it is said whether or not the loss fell (the run in the report learns, 8x slower).

EMBEDDING_INIT_ZERO: the model's token table (its only lookup table of width 2+) started
at exactly zero: every id enters the network as the same vector. fairseq's ``Embedding``
helper zeroes ``m.weight[padding_idx]``; with ``padding_idx=None`` that is ``m.weight[None]``,
the whole table (facebookresearch/fairseq#4076). The model reads no token until gradients
have pulled the rows apart through the few paths a zero input leaves alive. Read as above
(norm after the first step no more than the step). A width-1 table (a per-id bias, usually
started at zero) is left out; with several tables (positions zero-initialised on purpose
beside tokens) it is said only when learning is poor.
"""
import math

from ..findings import Finding
from .context import LOOKUP_TABLES, fmt, module_of, short_list
from .curve import learning_poor
from .graph import rule

GAIN_NORM_TYPES = {"LayerNorm", "GroupNorm", "RMSNorm", "BatchNorm1d", "BatchNorm2d",
              "BatchNorm3d", "SyncBatchNorm", "InstanceNorm1d", "InstanceNorm2d",
              "InstanceNorm3d"}      # [design] layers whose ``weight`` is a per-feature gain
NORM_GAIN_LOW = 0.1        # [torchinit] rms of a norm's gain at start: 1 by default (old
                           # PyTorch's BatchNorm U(0, 1): 0.58); the planted N(0, 0.02) gives
                           # 0.02; a tenth of the default is no initialiser's choice
NORM_GAIN_SHARE = 0.5      # [design] at least half of the norms with a gain (and one)
START_ZERO_SLACK = 1e-6    # [design] relative slack of |w1| <= |w1 - w0|: a norm no larger
                           # than the first update's may have started at exactly zero
SYMMETRY_TOLERANCE = 1e-6  # [design] rows equal when they differ by at most this share of the
                           # largest |w| (exact copies differ by 0 in float32 arithmetic)
SYMMETRY_MOVED = 1e-6      # [design] largest change of the first row, relative to the
                           # largest |w|, that says training moved the weight (a frozen
                           # constant layer does not move)

SYMPTOMS = {"SATURATED_ACTIVATIONS", "VANISHING_GRADIENTS", "COLLAPSED_ACTIVATIONS",
            "LOSS_AT_CHANCE", "LOSS_PLATEAU", "DEAD_RELU", "LR_TOO_LOW"}


def _start_rms(ctx, index):
    """(rms upper bound at start, started at exactly zero) of parameter ``index`` from the
    first record; None without one."""
    if not ctx.records or ctx.records[0].param_norm is None:
        return None
    record = ctx.records[0]
    norm = float(record.param_norm[index])
    update = float(record.update_norm[index]) if record.update_norm is not None else 0.0
    size = math.prod(ctx.run.params[index].shape)
    if size == 0 or not math.isfinite(norm) or not math.isfinite(update):
        return None
    zero = norm <= update * (1 + START_ZERO_SLACK) + 1e-12
    return (norm + update) / math.sqrt(size), zero


def _layer_weights(ctx, types):
    """[(layer name, parameter index)] of the ``weight`` of each layer of one of ``types``."""
    index = {p.name: i for i, p in enumerate(ctx.run.params)}
    found = []
    for layer in ctx.run.layers:
        if layer.type in types:
            name = f"{layer.name}.weight" if layer.name else "weight"
            if name in index:
                found.append((layer.name, index[name]))
    return found


@rule(produces="SYMMETRIC_INIT", explains=SYMPTOMS)
def symmetric_init(ctx):
    observed = getattr(ctx.run, "observed", None)
    rows = list(getattr(observed, "identical_units", None) or [])
    stuck = []
    for name, shape, start_peak, peak, spread, change in rows:
        if not all(math.isfinite(v) for v in (peak, spread, change)) or peak == 0.0:
            continue
        moved = change > SYMMETRY_MOVED * max(peak, start_peak)
        if moved and spread <= SYMMETRY_TOLERANCE * peak:
            stuck.append((name, shape))
    if not stuck:
        return None
    poor = learning_poor(ctx)
    return Finding(
        code="SYMMETRIC_INIT", severity="warning" if poor else "info",
        where=module_of(stuck[0][0]), step=None,
        message=f"{short_list(f'{n} {tuple(s)}' for n, s in stuck)}: every row (unit) "
                "started with exactly the same values and is still an exact copy of the "
                "others after training moved it. Units that start equal compute the same "
                "function, get the same gradient and the same update, so the symmetry "
                "never breaks: the layer is worth one unit"
                + (", and the run does not learn." if poor else "."),
        evidence={"weights": {n: list(s) for n, s in stuck}},
        fix="Initialise with random values (nn.init.xavier_uniform_ / kaiming_uniform_, or "
            "PyTorch's default); nn.init.constant_ / fill_ / zeros_ only for biases, or for "
            "a last layer whose input units already differ.")


@rule(produces="NORM_GAIN_INITIALISED_NEAR_ZERO", explains=SYMPTOMS)
def norm_gain_initialised_near_zero(ctx):
    gains = []
    for layer, i in _layer_weights(ctx, GAIN_NORM_TYPES):
        start = _start_rms(ctx, i)
        if start is not None:
            gains.append((layer, start[0], start[1]))
    small = [(layer, rms) for layer, rms, zero in gains if not zero and rms < NORM_GAIN_LOW]
    if not small or len(small) < NORM_GAIN_SHARE * len(gains):
        return None
    return Finding(
        code="NORM_GAIN_INITIALISED_NEAR_ZERO", severity="warning", where=small[0][0],
        step=int(ctx.records[0].step),
        message=f"{len(small)} of {len(gains)} normalisation layers start with a gain "
                f"(their weight, 1 by default) of rms {short_list(fmt(r) for _, r in small)} "
                f"({short_list(n for n, _ in small)}): an init function meant for the other "
                "layers' weights reached them. Each multiplies its normalised output by that "
                "small random value, with a random sign per feature, so the layers after it "
                "start reading a signal many times too small.",
        evidence={"gain_rms": {n: r for n, r in small}, "threshold": NORM_GAIN_LOW,
                  "norm_layers": len(gains)},
        fix="Leave norm layers out of the init function, or set them explicitly: "
            "nn.init.ones_(m.weight); nn.init.zeros_(m.bias) for nn.LayerNorm / BatchNorm / "
            "GroupNorm.")


@rule(produces="EMBEDDING_INIT_ZERO", explains=SYMPTOMS)
def embedding_init_zero(ctx):
    tables = [(layer, i) for layer, i in _layer_weights(ctx, LOOKUP_TABLES)
              if len(ctx.run.params[i].shape) == 2 and ctx.run.params[i].shape[1] >= 2]
    zero = []
    for layer, i in tables:
        start = _start_rms(ctx, i)
        if start is not None and start[1]:
            zero.append((layer, tuple(ctx.run.params[i].shape)))
    if not zero:
        return None
    if len(tables) > 1 and not learning_poor(ctx):
        return None
    layer, shape = zero[0]
    return Finding(
        code="EMBEDDING_INIT_ZERO", severity="warning", where=layer,
        step=int(ctx.records[0].step),
        message=f"The embedding table {layer} {shape} started at exactly zero: every id "
                "entered the network as the same vector, and the model can tell its tokens "
                "apart only as far as the gradients have pulled the rows away from zero. "
                "A padding row zeroed with weight[padding_idx] while padding_idx is None "
                "zeroes the whole table (weight[None] is all of it).",
        evidence={"tables": {n: list(s) for n, s in zero}},
        fix="Zero only the padding row, and only when there is one: "
            "if padding_idx is not None: nn.init.zeros_(m.weight[padding_idx]); draw the "
            "table from N(0, dim ** -0.5) or keep nn.Embedding's default N(0, 1).")
