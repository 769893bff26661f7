"""RECURRENT_STATE_NEVER_PASSED: a layer unrolled over time (called several times in each
forward pass) whose weight reads exactly zero at every call: the hidden state it should
carry from one step to the next is never handed back in.

A recurrent step is ``h = cell(x_t, h)``. Written ``h = cell(x_t)`` (or with the initial
zeros passed at every step: ``gru(x_t, h0)``), the cell falls back to a zero state on every
call; the weight that multiplies the state (``weight_hh`` of a GRUCell/LSTMCell/GRU, the
``h``-side Linear of a hand-written cell) then gets a gradient of exactly zero on every
step - ``grad W = delta x^T`` vanishes only where its input ``x`` is zero, since its own bias,
added with it, gets ``delta`` itself and does learn. Nothing errors; every step is predicted
from that step alone (JWFanggit/LOTVS-CAP#9, pytorch_geometric_temporal#145).

The evidence is recorded anyway: per-parameter gradient norms, and the layer's output
statistics per call (the hooks key a layer's second and later calls ``name#2``, ...). A
healthy cell reads zeros at its first call only, so its state weight's gradient is not zero.
NO_GRADIENT names the zero gradient with generic guesses; RNN_READ_BEFORE_RECURRENCE names
a recurrent layer read at its first step. This rule names the loop.
"""
import numpy as np

from ..findings import Finding
from .context import MAJORITY, MIN_RECORDS, module_of, per_parameter, short_list
from .graph import rule

WEIGHT_PREFIX = "weight"   # [torchinit] torch names a layer's weights weight*, the bias added
BIAS_PREFIX = "bias"       # with each bias* with the same suffix (weight_hh / bias_hh)
DEAD_RELU_SHARE = 0.9      # [design] a ReLU this dead feeds zeros too: that is DEAD_RELU's case
                           # (signal_flow.DEAD_FRACTION_SEVERE)


def _weight_bias_pairs(params):
    """[(weight index, bias index)] for every weight whose own bias is a trainable parameter."""
    index = {p.name: i for i, p in enumerate(params)}
    pairs = []
    for i, p in enumerate(params):
        module, _, attribute = p.name.rpartition(".")
        if not attribute.startswith(WEIGHT_PREFIX):
            continue
        bias = BIAS_PREFIX + attribute[len(WEIGHT_PREFIX):]
        bias_name = f"{module}.{bias}" if module else bias
        if bias_name in index:
            pairs.append((i, index[bias_name]))
    return pairs


def _unrolled(ctx, module):
    """Whether ``module`` was called more than once per forward pass in most records that
    measured it (a layer inside a loop over time steps)."""
    measured = [r for r in ctx.records if module in r.activations]
    if len(measured) < MIN_RECORDS:
        return False
    repeated = sum(f"{module}#2" in r.activations for r in measured)
    return repeated >= MAJORITY * len(measured)


def _dead_relu_upstream(ctx):
    """Whether some ReLU layer was almost entirely dead in most records (then zeros reach
    the layers after it for that reason, not for a lost state)."""
    for layer in ctx.run.layers:
        if layer.kind != "relu":
            continue
        dead = [r.activations.get(layer.name, {}).get("dead") for r in ctx.records]
        dead = [d for d in dead if d is not None]
        if dead and sum(d >= DEAD_RELU_SHARE for d in dead) >= MAJORITY * len(dead):
            return True
    return False


def _zero_state_weights(ctx):
    """[(weight name, bias name)] of unrolled layers whose weight got exactly zero gradient
    on every recorded backward pass while its bias got a finite nonzero one."""
    params = ctx.run.params
    pairs = [(w, b) for w, b in _weight_bias_pairs(params)
             if _unrolled(ctx, module_of(params[w].name))]    # few models loop a layer
    if not pairs:
        return []
    width = len(params)
    norms = [per_parameter(r, "grad_norm", width) for r in ctx.records if r.backward]
    norms = [n for n in norms if n is not None]
    if len(norms) < MIN_RECORDS:
        return []
    grads = np.vstack([np.asarray(n, float) for n in norms])
    return [(params[w].name, params[b].name) for w, b in pairs
            if np.all(grads[:, w] == 0) and np.all(np.isfinite(grads[:, b])) and
            np.all(grads[:, b] > 0)]


@rule(produces="RECURRENT_STATE_NEVER_PASSED",
      explains={"NO_GRADIENT", "COLLAPSED_ACTIVATIONS", "LOSS_PLATEAU", "LOSS_AT_CHANCE"})
def recurrent_state_never_passed(ctx):
    found = _zero_state_weights(ctx)
    if not found or _dead_relu_upstream(ctx):
        return None
    weights = [w for w, _ in found]
    return Finding(
        code="RECURRENT_STATE_NEVER_PASSED", severity="warning", where=module_of(weights[0]),
        step=ctx.first_step,
        message=f"{short_list(sorted({module_of(w) for w in weights}))} run several times in "
                f"each forward pass (a loop over time steps), and the weight(s) "
                f"{short_list(weights)} get a gradient of exactly zero on every recorded step "
                "while their biases learn: what they multiply is zero at every call. That is "
                "a recurrent cell's hidden state never handed back in - every step starts "
                "from the zero initial state (h = cell(x_t) instead of h = cell(x_t, h), or "
                "the initial state passed again at each step), so nothing is carried from one "
                "step to the next and the recurrence never learns.",
        evidence={"state_weights": weights, "their_biases": [b for _, b in found]},
        fix="Feed the state the cell returns back in at the next step: h = cell(x_t, h) "
            "(out, h = rnn(x_t, h) for nn.GRU/nn.LSTM called one step at a time), starting "
            "from zeros (or None) only before the first step of a sequence.")
