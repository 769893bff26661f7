"""A quick screen inside ``nd.watch``: could the full dependency check find anything here?

``check_dependencies`` is thorough: a float64 copy of the model, 8 samples probed one by one,
the whole batch searched for a single mixed pair, tens of passes in all. Inside a short
training run that costs more than many training steps (31 ms of a 420 ms run on a 12-block
residual MLP), and on a healthy model - the common case - it finds nothing. So watch first
asks a cheaper question, on the user's model itself, in its own dtype, with two samples:

- **mixing**: one forward pass with gradients on the inputs, then one backward pass per
  sample with a random direction on that sample's output only. A model that keeps samples
  apart gives a gradient that is *exactly* zero on every other sample (a zero row of
  cotangent stays zero through a matrix product, a normalisation over features, a
  convolution): exact in float32 as in float64, so no tolerance is needed;
- **place in batch**: the same two samples in reverse order must give the same outputs,
  reversed (a table sliced by ``x.size(0)`` breaks this without mixing samples). Float32
  kernels may round a row differently at another place, so this one compares within
  ``PLACE_TOLERANCE``.

Anything unusual - a nonzero gradient, a moved output, an input or output the screen does not
understand, an error - is not judged here: watch then runs the full check, which names what
it finds (or explains why it is by design). The screen only ever *skips* the full check, so a
healthy model is cleared for the price of about two training steps on two samples, and every
finding still comes from ``check_dependencies``.

Where the screen does not apply, watch runs the full check as before: token ids (no gradient
to the inputs; the sequence probes need the copies anyway), inputs that are not one float
tensor, targets that are sequences (their alignment and the future leak are read by the full
check), models with positional tensors, half-precision, compiled or sharded models
(``NOT_IN_PLACE``), and minigrad models.

The user's model is run in place (a copy would cost more than the screen itself), so
everything a forward pass might change is put back: train/eval flags (the screen runs in eval
mode, as the full check does), nndebug's own hooks (hidden meanwhile, so a monitor never sees
the screen's passes), attributes a forward assigns (``self.last_attention = ...``), lists
and dicts it appends to, buffers changed in place, requires_grad flags, and the RNG state (the random directions come from a
private generator). Parameters and their ``.grad`` are never written: the forward pass only
reads them, and the gradient is taken with respect to the inputs alone.
"""
import contextlib

from ...adapters.base import is_nndebug_hook

SCREEN_SAMPLES = 2
"""The smallest sub-batch that can show one sample reading another (both directions)."""
PLACE_TOLERANCE = 1e-4
"""Relative change (to the output's largest magnitude) that counts as "moved" when two
samples swap places: ~1000 float32 roundings; a position-dependent table changes outputs by
far more. Half-precision models are not screened."""
SCREENED_DTYPES = ("torch.float32", "torch.float64")
NOT_IN_PLACE = {"OptimizedModule", "FullyShardedDataParallel", "RecursiveScriptModule"}
"""Models the screen does not run in place: a compiled one would recompile for eval mode and a
batch of two (and count against its recompile limit), a sharded one would gather its weights
across ranks, a TorchScript one keeps its state out of reach of ``vars()``. The full check, on
its own copy, decides for them as before."""


def screen_is_clean(adapter, inputs, targets, has_positional_tensors):
    """True when the screen clears the model (the full check would find nothing worth a
    pass); False when the full check must run (something moved, or the screen cannot tell)."""
    if not _applies(adapter, inputs, targets) or has_positional_tensors:
        return False
    import torch
    rng = adapter.get_rng_state()      # a forward pass may draw (dropout built in forward)
    try:
        with kept_as_is(adapter.model):
            return _clean(torch, adapter, inputs[:SCREEN_SAMPLES].detach())
    except Exception:                  # whatever the model refuses: the full check decides
        return False
    finally:
        adapter.set_rng_state(rng)


def _applies(adapter, inputs, targets):
    """One float tensor of at least two samples, one target per sample ((B,) or (B, 1), or
    none seen), a torch model that may run in place."""
    if adapter.framework != "torch" or not adapter.is_tensor(inputs):
        return False
    if any(type(m).__name__ in NOT_IN_PLACE for m in adapter.model.modules()):
        return False
    if str(inputs.dtype) not in SCREENED_DTYPES or inputs.ndim < 2 or \
            inputs.shape[0] < SCREEN_SAMPLES:
        return False
    if targets is None:
        return True
    shape = tuple(getattr(targets, "shape", ()) or ())
    return shape in ((inputs.shape[0],), (inputs.shape[0], 1))


def _clean(torch, adapter, x):
    """The two checks on the samples ``x`` (see the module docstring); False at the first
    sign of a dependence or of anything the checks cannot read."""
    rows = x.shape[0]
    x = x.clone().requires_grad_(True)
    directions = torch.Generator(device=x.device).manual_seed(0)   # not the user's RNG
    with torch.enable_grad():
        out = _main_output(torch, adapter.model(x), rows)
    if out is None or not out.requires_grad or not bool(torch.isfinite(out).all()):
        return False
    for i in range(rows):              # sample i's output must not reach any other sample
        direction = torch.zeros_like(out)
        direction[i] = torch.randn(out[i].shape, generator=directions, device=out.device,
                                   dtype=out.dtype)
        # <out, direction> as a scalar: grad_outputs= would import sympy (tens of MiB)
        grad, = torch.autograd.grad((out * direction).sum(), x, retain_graph=i < rows - 1,
                                    allow_unused=True)
        if grad is None:               # the output does not depend on the inputs at all
            return False
        others = torch.cat([grad[:i], grad[i + 1:]])
        if int(torch.count_nonzero(others)) or not bool(torch.isfinite(grad).all()):
            return False
    reverse = torch.arange(rows - 1, -1, -1, device=x.device)
    with torch.no_grad():
        swapped = _main_output(torch, adapter.model(x.detach()[reverse]), rows)
    if swapped is None or swapped.shape != out.shape:
        return False
    expected = out.detach()[reverse]
    scale = float(expected.abs().max()) or 1.0
    return float((swapped - expected).abs().max()) <= PLACE_TOLERANCE * scale


def _main_output(torch, output, rows):
    """The first float tensor of the output with one row per sample (a tuple or dict output
    may begin with something else), or None."""
    if isinstance(output, dict):
        output = list(output.values())
    if isinstance(output, (tuple, list)):
        for value in output:
            found = _main_output(torch, value, rows)
            if found is not None:
                return found
        return None
    if isinstance(output, torch.Tensor) and output.is_floating_point() and output.ndim >= 1 \
            and output.shape[0] == rows:
        return output
    return None


@contextlib.contextmanager
def kept_as_is(model, eval_mode=True):
    """Run the model in eval mode (``eval_mode=False``: in the modes it has) with nndebug's
    hooks hidden; afterwards put back the modes,
    every module attribute a forward pass assigned, the contents of every list, dict or set a
    module holds (a forward that appends to ``self.seen``, or registers a buffer), the hook
    tables nndebug's hooks were hidden from, and every buffer changed in place."""
    modules = list(model.modules())
    attributes = [dict(vars(m)) for m in modules]        # the train/eval flag among them
    modes = [m.training for m in modules]                # (in case a module keeps it elsewhere)
    containers, hidden = [], []
    for m in modules:
        for name, value in vars(m).items():
            if not isinstance(value, (list, dict, set)):
                continue
            if name.startswith("_") and "_hooks" in name:
                # torch's hook tables (15 a module): only those holding nndebug's hooks,
                # which are hidden meanwhile
                mine = [k for k, fn in value.items() if is_nndebug_hook(fn)]
                if mine:
                    containers.append((value, value.copy()))
                    hidden.append((value, mine))
            else:
                containers.append((value, value.copy()))
    flags = [(p, p.requires_grad) for p in model.parameters()]   # a train() override may
                                                                  # (un)freeze parameters
    buffers = [(b, b._version, b.detach().clone()) for m in modules
               for b in m._buffers.values() if b is not None]
    for table, keys in hidden:
        for key in keys:
            del table[key]             # back, in their place, with the containers below
    if eval_mode:
        model.eval()
    try:
        yield
    finally:
        for m, saved, mode in zip(modules, attributes, modes):
            vars(m).clear()            # the same objects put back: a no-op where nothing
            vars(m).update(saved)      # changed, cheaper than finding out
            if m.training != mode:
                m.training = mode
        for value, saved in containers:
            if isinstance(value, list):
                value[:] = saved
            else:
                value.clear()
                value.update(saved)
        for p, flag in flags:
            if p.requires_grad != flag:
                p.requires_grad_(flag)
        for buffer, version, value in buffers:
            # in training mode batch norm's kernel updates its running statistics without
            # bumping their version counter: every buffer goes back then
            if buffer._version != version or not eval_mode:
                with _no_grad():
                    buffer.copy_(value)


def _no_grad():
    import torch
    return torch.no_grad()
