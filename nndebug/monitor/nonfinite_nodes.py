"""The arithmetic of ``nonfinite_origins.py``: did one operation make NaN/Inf out of finite
inputs, measured from a call's tensors or from what a graph node saved for its backward.

``flags(result, inputs)`` is the measurement (three device values, no host transfer):
made non-finite here, result non-finite, inputs finite. A NaN out of inputs without NaN
and without +inf counts as made here (a row of -inf in a softmax: -inf is what a mask
puts there on purpose); so does any NaN/Inf out of finite inputs. An input at +inf
overflowed upstream: nothing is made here.

Inside the model's forward the calls are read back from the graph when the forward
returns (``forward_order``): a node of a risky operation still holds what it saved for its
backward, its result (sqrt, exp, softmax, ...) or its inputs (log, div, acos, pow, ...);
from inputs the result is computed again (``RECOMPUTE``, one elementwise operation).
"""
import functools
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
    """[made non-finite here, result non-finite, inputs finite] as one float device tensor."""
    import torch
    out_bad = ~torch.isfinite(result).all()
    made, in_finite = out_bad, torch.ones((), dtype=torch.bool, device=result.device)
    if inputs:
        no_nan_in = ~torch.stack([(torch.isnan(a) | (a == float("inf"))).any()
                                  for a in inputs]).any()
        in_finite = torch.stack([torch.isfinite(a).all() for a in inputs]).all()
        made = (torch.isnan(result).any() & no_nan_in) | (out_bad & in_finite)
    return torch.stack([made, out_bad, in_finite]).float()


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
