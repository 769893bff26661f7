"""Argument checks shared by nndebug's public functions: one clear line per bad input.

A learner who passes the wrong thing should read, in one sentence, which argument is
wrong, what was expected, what was found and what to do - not a traceback from deep
inside NumPy or torch ("must be Tensor, not Tensor", "Long and Double"). Each check
here raises a ``TypeError`` (wrong kind of thing) or ``ValueError`` (right kind, bad
value) with such a sentence, and returns the cleaned value (NumPy scalars become
Python numbers: ``steps=np.int64(20)`` is as good as ``steps=20``).

None of these checks runs the model; ``explain_forward_error`` translates the few
errors that only the model's first forward pass can reveal.
"""
import contextlib
import math
import numbers
import os

import numpy as np

FRAMEWORK_NAMES = {"torch": "PyTorch", "minigrad": "minigrad"}
CONVERSIONS = {
    ("torch", "minigrad"): "convert it with minigrad.tensor(x.detach().cpu().numpy()) (or pass a "
                           "NumPy array)",
    ("minigrad", "torch"): "convert it with torch.tensor(x.numpy()) (or pass a NumPy array)",
}


# --- numbers -----------------------------------------------------------------------

def integer(value, name, *, minimum=1):
    """``value`` as a Python int >= ``minimum`` (NumPy integers accepted, bools refused)."""
    wanted = {0: "a non-negative integer", 1: "a positive integer"}.get(
        minimum, f"an integer >= {minimum}")
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be {wanted}, got {_show(value)}; "
                        f"pass e.g. {name}={max(minimum, 1)}")
    if value < minimum:
        raise ValueError(f"{name} must be {wanted}, got {int(value)}")
    return int(value)


def seed(value, name="seed"):
    """A seed: a non-negative integer (NumPy's generators refuse negative ones)."""
    return integer(value, name, minimum=0)


def positive_number(value, name):
    """``value`` as a finite Python float > 0 (NumPy scalars accepted, bools refused)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a positive number, got {_show(value)}")
    value = float(value)
    if not (value > 0 and math.isfinite(value)):
        raise ValueError(f"{name} must be a positive number (finite), got {value!r}")
    return value


def tolerance(value, name):
    """A tolerance: a finite number >= 0 (a negative one would call every difference, even
    zero, a divergence)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number >= 0, got {_show(value)}; pass e.g. {name}=1e-6")
    value = float(value)
    if not (value >= 0 and math.isfinite(value)):
        raise ValueError(f"{name} must be a finite number >= 0, got {value!r}; pass e.g. "
                         f"{name}=1e-6")
    return value


def path(value, name, example="nndebug.png"):
    """A file path to write to: a str or os.PathLike that is not an existing folder (an
    open binary file, anything with ``write``, passes as it is). ``example``: the file name
    the messages suggest."""
    if hasattr(value, "write"):
        return value
    if not isinstance(value, (str, os.PathLike)):
        raise TypeError(f"{name} must be a file path (a str or pathlib.Path), got "
                        f"{_show(value)}; pass e.g. {name}={example!r}")
    if os.path.isdir(value):
        raise ValueError(f"{name} {os.fspath(value)!r} is a folder; pass a file path inside it, "
                         f"e.g. {os.path.join(os.fspath(value), example)!r}")
    return value


def _show(value):
    text = repr(value)
    return f"{type(value).__name__} {text[:60]}" if len(text) <= 60 else type(value).__name__


# --- frameworks ----------------------------------------------------------------------

def framework_of(value):
    """"torch", "minigrad" or None: whose tensor, module or function ``value`` is."""
    module = type(value).__module__ or ""
    if callable(value) and not isinstance(value, type) and hasattr(value, "__module__") \
            and not hasattr(value, "forward"):
        module = getattr(value, "__module__", "") or module   # a plain function
    root = module.split(".")[0]
    return root if root in FRAMEWORK_NAMES else None


def same_framework(adapter, value, name):
    """A clear TypeError when ``value`` holds tensors of the other framework than the model's."""
    found = _foreign_leaf(adapter.framework, value)
    if found is None:
        return
    how = CONVERSIONS.get((found, adapter.framework), "convert it to the model's framework")
    raise TypeError(
        f"{name} holds a {FRAMEWORK_NAMES[found]} tensor but the model is a "
        f"{FRAMEWORK_NAMES[adapter.framework]} model; {how}, or convert the model with "
        "minigrad.interop.from_torch / to_torch")


def _foreign_leaf(framework, value, depth=0):
    if depth > 4 or value is None:
        return None
    if isinstance(value, (tuple, list)):
        for v in value:
            found = _foreign_leaf(framework, v, depth + 1)
            if found:
                return found
        return None
    if isinstance(value, dict):
        return _foreign_leaf(framework, list(value.values()), depth + 1)
    owner = framework_of(value) if hasattr(value, "shape") else None
    return owner if owner and owner != framework else None


def same_framework_loss(adapter, loss_fn):
    """A torch loss (module or torch.nn.functional function) with a minigrad model, or the
    reverse, is named before it fails inside with "must be Tensor, not Tensor"."""
    if not callable(loss_fn):
        raise TypeError(f"loss_fn must be callable as loss_fn(output, target), got "
                        f"{type(loss_fn).__name__}")
    owner = framework_of(loss_fn)
    if owner and owner != adapter.framework:
        other = "minigrad.nn" if adapter.framework == "minigrad" else "torch.nn"
        name = type(loss_fn).__name__ if hasattr(loss_fn, "forward") else \
            getattr(loss_fn, "__name__", "function")
        raise TypeError(
            f"loss_fn is a {FRAMEWORK_NAMES[owner]} loss ({name}) but the model is a {FRAMEWORK_NAMES[adapter.framework]} model; use the loss "
            f"of the same name from {other}")


# --- data -----------------------------------------------------------------------------

def samples(adapter, value, name):
    """Refuse an empty batch (no samples, or an array with a zero-sized dimension) with a
    sentence that says so - instead of a NaN loss blamed on "log of 0"."""
    for leaf in _array_leaves(adapter, value):
        shape = tuple(np.shape(leaf))
        if int(np.prod(shape)) == 0 and shape:
            raise ValueError(f"{name} is an empty batch (shape {shape}): there is nothing to "
                             "compute on; pass at least one sample")


def problem(adapter, inputs, targets, loss_fn):
    """The checks every (model, inputs, targets, loss_fn) call starts with. ``targets`` may
    be None (a loss_fn that ignores its second argument)."""
    if inputs is None:
        raise TypeError("inputs is None; pass the model's input batch (a tensor, a NumPy array, "
                        "or a tuple/dict of them)")
    if isinstance(inputs, numbers.Number) or tuple(getattr(inputs, "shape", (1,))) == ():
        raise ValueError(f"inputs is a single number ({_show(inputs)}), not a batch; pass an "
                         "array with one row per sample (x.reshape(1, -1) for one sample)")
    same_framework(adapter, inputs, "inputs")
    same_framework(adapter, targets, "targets")
    same_framework_loss(adapter, loss_fn)
    samples(adapter, inputs, "inputs")
    samples(adapter, targets, "targets")


def _array_leaves(adapter, value):
    if isinstance(value, (tuple, list)):
        return [leaf for v in value for leaf in _array_leaves(adapter, v)]
    if isinstance(value, dict):
        return [leaf for v in value.values() for leaf in _array_leaves(adapter, v)]
    if value is None or isinstance(value, (str, bytes, numbers.Number)):
        return []
    if hasattr(value, "shape"):
        return [value]
    try:
        return [np.asarray(value)]
    except Exception:   # not array-like: the model will say what it expected
        return []


# --- errors only a forward pass reveals ----------------------------------------------------

@contextlib.contextmanager
def explain_forward_error(adapter, inputs, targets=None):
    """Re-raise what the model's FIRST forward pass (and loss) says about bad data as one
    line that names the data.

    A float model fed integer data fails deep inside a layer ("mat1 and mat2 must have the
    same dtype, but got Long and Float"); what the user needs to hear is "inputs are int64,
    the model computes in float32: pass floats". Other framework errors on the first pass
    (a shape that does not fit the first layer, labels out of range) are data errors too:
    they become a ValueError that quotes the framework's first line and shows the shapes.
    Only the first pass is wrapped: an error later on is the model's or the loss's own.
    """
    try:
        yield
    except (RuntimeError, TypeError, ValueError, IndexError) as error:
        text = one_line(error)
        integer_inputs = [leaf for leaf in _array_leaves(adapter, inputs)
                          if np.dtype(_dtype_of(adapter, leaf)).kind in "iub"]
        if integer_inputs and any(k in text for k in ("Long", "Int", "dtype", "Double", "Byte")):
            dtype = _dtype_of(adapter, integer_inputs[0])
            raise TypeError(
                f"inputs are {dtype} but the model computes in {adapter.float_dtype()} and its "
                f"first layer expects floating-point data; convert them first (x.float() in "
                f"torch, x.astype(np.float32) in NumPy)") from error
        if _is_ours(error):
            raise
        kind = TypeError if isinstance(error, TypeError) else ValueError
        raise kind(f"the model and loss_fn could not run on these data ({describe(adapter, inputs)}"
                   f" -> targets {describe(adapter, targets)}): {type(error).__name__}: "
                   f"{text[:160]}; check the data against the model's first layer and the "
                   "loss") from error


def _is_ours(error):
    """An error nndebug itself raised (already one clear line) passes through unchanged."""
    frames = []
    tb = error.__traceback__
    while tb is not None:
        frames.append(tb.tb_frame.f_code.co_filename)
        tb = tb.tb_next
    return bool(frames) and "/nndebug/" in frames[-1]


def one_line(error):
    lines = str(error).strip().splitlines()
    return lines[0] if lines else type(error).__name__


def describe(adapter, value):
    """"float32 (5, 3)" for one array, "[...]" for a structure: what the data look like."""
    leaves = _array_leaves(adapter, value)
    if not leaves:
        return type(value).__name__
    parts = [f"{_dtype_of(adapter, leaf)} {tuple(np.shape(leaf))}" for leaf in leaves[:3]]
    return parts[0] if len(leaves) == 1 else "[" + ", ".join(parts) + "]"


def _dtype_of(adapter, leaf):
    dtype = getattr(leaf, "dtype", None)
    if dtype is None:
        return np.asarray(leaf).dtype
    try:
        return np.dtype(dtype)
    except TypeError:
        return np.dtype(str(dtype).replace("torch.", ""))
