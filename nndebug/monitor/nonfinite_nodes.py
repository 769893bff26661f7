"""The arithmetic of ``nonfinite_origins.py``: did one operation make NaN/Inf out of finite
inputs, measured from a call's tensors or from what a graph node saved for its backward.

``flags(result, inputs)`` is the measurement: the sum of the result and of each input, one
device tensor, no host transfer. NaN and infinities survive a sum: it is NaN when the
tensor holds a NaN (or both infinities), +inf or -inf when it holds that infinity, finite
otherwise (a sum of finite values overflows only past float32's range, ~3e38, and the rule
reads a birth only on a step whose loss or gradients did go non-finite). One reduction per
tensor: the several tests per tensor this replaced cost a small model's recorded step more
in dispatch than the step itself. ``verdict(sums)`` reads them on the host: made non-finite
here, result non-finite, inputs finite. A NaN out of inputs without NaN and without +inf
counts as made here (a row of -inf in a softmax: -inf is what a mask puts there on
purpose); so does any NaN/Inf out of finite inputs. An input at +inf overflowed upstream:
nothing is made here.

Inside the model's forward the calls are read back from the graph when the forward
returns (``forward_order``): a node of a risky operation still holds what it saved for its
backward, its result (sqrt, exp, softmax, ...) or its inputs (log, div, acos, pow, ...);
from inputs the result is computed again (``RECOMPUTE``, one elementwise operation).
"""
import functools
import math
import re

# backward node kinds (the class name without "Backward0") -> the operation they differentiate
NODE_OPERATIONS = {
    "sqrt": "sqrt", "rsqrt": "rsqrt", "log": "log", "log2": "log2", "log10": "log10",
    "log1p": "log1p", "exp": "exp", "exp2": "exp2", "expm1": "expm1", "pow": "pow",
    "div": "div", "reciprocal": "reciprocal", "acos": "acos", "asin": "asin",
    "atanh": "atanh", "acosh": "acosh", "atan2": "atan2", "linalgvectornorm": "vector_norm",
    "norm": "norm", "cdist": "cdist", "euclideandist": "cdist", "softmax": "softmax",
    "logsoftmax": "log_softmax", "std": "std", "var": "var", "logsumexp": "logsumexp",
    "xlogy": "xlogy"}
_KIND = re.compile(r"Backward\d*$")


def flags(result, inputs):
    """The sums of ``result`` and of each input (float32: 16-bit values are added up in
    float32, where their sums cannot overflow) as one device tensor; see ``verdict``."""
    import torch
    return torch.stack([t.sum(dtype=torch.float32) for t in [result, *inputs]])


def verdict(sums):
    """(made non-finite here, result non-finite, inputs finite) from ``flags``' values, read
    on the host."""
    result, inputs = float(sums[0]), [float(v) for v in sums[1:]]
    result_bad = not math.isfinite(result)
    inputs_finite = all(math.isfinite(v) for v in inputs)
    no_nan_in = not any(math.isnan(v) or v == math.inf for v in inputs)
    made = (math.isnan(result) and no_nan_in) or (result_bad and inputs_finite)
    return made, result_bad, inputs_finite


def grad_roots(output):
    """The graph nodes of the tensors in a forward's output (a tensor, or tuples, lists and
    dicts of them, as models return)."""
    import torch
    found, pending = [], [output]
    while pending and len(found) < 64:
        item = pending.pop()
        if isinstance(item, torch.Tensor):
            if item.grad_fn is not None:
                found.append(item.grad_fn)
        elif isinstance(item, (tuple, list)):
            pending.extend(item)
        elif isinstance(item, dict):
            pending.extend(item.values())
    return found


def forward_order(roots, limit):
    """The nodes behind ``roots`` (at most ``limit``), each after the nodes it reads: the
    order in which the forward made them."""
    order, seen, stack = [], set(), [(node, False) for node in roots]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            order.append(node)
            continue
        if node is None or id(node) in seen or len(seen) >= limit:
            continue
        seen.add(id(node))
        stack.append((node, True))
        stack.extend((parent, False) for parent, _ in getattr(node, "next_functions", ()))
    return order


def node_kind(node):
    return _KIND.sub("", type(node).__name__).lower()


def _saved(node, name):
    """A floating-point tensor the node saved, or None (not saved, a number, or freed)."""
    import torch
    try:
        value = getattr(node, name)
    except (AttributeError, RuntimeError):
        return None
    return value if isinstance(value, torch.Tensor) and value.is_floating_point() else None


def _exponent(node):
    try:
        return node._saved_exponent
    except (AttributeError, RuntimeError):
        return None


@functools.lru_cache(maxsize=None)
def _recompute():
    import torch
    one = {"log": torch.log, "log2": torch.log2, "log10": torch.log10, "log1p": torch.log1p,
           "acos": torch.acos, "asin": torch.asin, "atanh": torch.atanh, "acosh": torch.acosh}
    table = {name: (lambda f: lambda node, a: f(a[0]))(f) for name, f in one.items()}
    table["div"] = lambda node, a: a[0] / a[1] if len(a) == 2 else 1.0 / a[0]
    table["xlogy"] = lambda node, a: torch.xlogy(a[0], a[1]) if len(a) == 2 else None
    table["pow"] = lambda node, a: None if _exponent(node) is None else \
        torch.pow(a[0], _exponent(node))
    return table


def saved_flags(operation, node):
    """``flags`` of the call behind a graph node, from what it saved; None where it saved
    too little to tell."""
    result = _saved(node, "_saved_result")
    inputs = [t for t in (_saved(node, "_saved_self"), _saved(node, "_saved_other"))
              if t is not None]
    if result is None:
        compute = _recompute().get(operation)
        result = compute(node, inputs) if compute is not None and inputs else None
    return None if result is None else flags(result, inputs)
