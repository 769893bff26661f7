"""Logs of probabilities that nothing keeps away from 0 (real-bug batch 75: losses written by
hand), read for ``nndebug.rules.nonfinite_origins`` when a run's first NaN was born on a
step no record watched.

A loss written by hand as ``log(softmax(z))``, ``log(sigmoid(z))`` or ``log(1 - sigmoid(z))``
is finite until the model grows confident: then float32 rounds a probability to exactly 0
(a softmax gap past ~104) or a sigmoid to exactly 1 (a logit past ~17), the log is -inf and
the one-hot's 0 x -inf is NaN. A clamp guards it only if its bound survives the dtype:
``clamp(p, 1e-8, 1 - 1e-8)`` keeps ``log(p)`` finite, but 1 - 1e-8 is exactly 1.0 in float32
(its spacing below 1 is 6e-8), so ``log(1 - p)`` is not guarded at all. The NaN comes on one
step, late in the run, rarely a recorded one: the origin watch (``nonfinite_origins.py``)
sees the loss's calls on the first recorded steps only, when every probability is still far
from 0.

What is read here is the structure, not the values: for each log the origin watch meets on
those steps (its mode's calls in the loss, the graph's log nodes inside the model's
forward), the chain of graph nodes below the log's argument, walked back through the
operations that keep a probability a probability (indexing, gathers, views, a ``1 - p``,
a clamp whose bound is lost in the dtype) to a softmax or a sigmoid. A log that reaches one
is unguarded; an ``+ eps``, a clamp whose bound holds, a ``log_softmax``, ``logsigmoid`` or
``F.binary_cross_entropy`` (which clamps its logs at -100) are not such chains.

Cost: a few attribute reads per log call on the origin watch's steps (the first three
recorded ones), no device work, no host transfer. Kept in ``observed.unguarded_logs``:
``[(step, "log(1 - sigmoid)", source)]``, at most ``KEPT``.
"""
KEPT = 4              # [design] distinct unguarded logs kept: the rule names the first
CHAIN_LIMIT = 12      # [design] nodes walked below one log (a view, an index, a clamp, a
                      # 1 - p: a handful; past this the argument is no probability's)
PROBABILITIES = {"softmax": "softmax", "sigmoid": "sigmoid"}
# operations that keep a probability in [0, 1] as it is: a value of the input, moved
PASS_THROUGH = frozenset({
    "index", "select", "gather", "slice", "view", "reshapealias", "unsafeview", "unsqueeze",
    "squeeze", "expand", "permute", "transpose", "t", "clone", "tocopy", "alias",
    "indexselect", "maskedselect", "take", "narrow", "split", "splitwithsizes", "unbind",
    "diagonal", "flatten", "contiguous"})
LOG_OPERATIONS = frozenset({"log", "log2", "log10", "log1p"})


def _kind(node):
    import re
    return re.sub(r"Backward\d*$", "", type(node).__name__).lower()


def _bound_holds(bound, need, dtype):
    """Whether a clamp ``bound`` keeps the value from 0 (``need`` "low": a min above 0) or from
    1 (``need`` "high": a max below 1) once rounded to ``dtype``."""
    import torch
    if bound is None:
        return False
    try:
        value = float(torch.tensor(float(bound), dtype=dtype))
    except (TypeError, ValueError, RuntimeError):
        return True          # a tensor bound, or one we cannot read: not ours to judge
    return value > 0.0 if need == "low" else value < 1.0


def _clamp_bound(node, need):
    name = "_saved_min" if need == "low" else "_saved_max"
    try:
        return getattr(node, name)
    except (AttributeError, RuntimeError):
        return None


def unguarded(operation, node, dtype):
    """A description of the probability a log ``node`` (its backward node) takes unguarded,
    as "log(1 - sigmoid)", or None (guarded, or not a probability)."""
    if operation not in LOG_OPERATIONS or node is None:
        return None
    parents = getattr(node, "next_functions", ())
    current = parents[0][0] if parents else None
    need, complement = "low", False       # the argument must stay above 0
    if operation == "log1p":
        # log1p(-p) needs p < 1
        if current is None or _kind(current) != "neg":
            return None
        parents = current.next_functions
        current, need, complement = (parents[0][0] if parents else None), "high", True
    for _ in range(CHAIN_LIMIT):
        if current is None:
            return None
        kind = _kind(current)
        if kind in PROBABILITIES:
            inner = PROBABILITIES[kind]
            return f"{operation}(1 - {inner})" if complement else f"{operation}({inner})"
        if kind == "rsub":                     # 1 - p: the other bound matters now
            need, complement = ("high" if need == "low" else "low"), not complement
        elif kind in ("clamp", "clampmin", "clampmax", "clip"):
            if _bound_holds(_clamp_bound(current, need), need, dtype):
                return None
        elif kind not in PASS_THROUGH:
            return None
        parents = current.next_functions
        current = parents[0][0] if parents else None
    return None


def note(observed, step, operation, node, dtype, source):
    """Keep an unguarded log met on ``step`` (at most ``KEPT``, one per description)."""
    kept = observed.unguarded_logs
    if len(kept) >= KEPT:
        return
    try:
        described = unguarded(operation, node, dtype)
    except Exception:          # a node kind we did not foresee: nothing to say
        return
    if described is not None and all(d != described for _, d, _ in kept):
        kept.append((int(step), described, source))
