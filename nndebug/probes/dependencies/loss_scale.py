"""GRADIENT_IGNORES_LOSS: a backward that does not pass on the gradient it is given.

Backpropagation is the chain rule: every backward receives ``grad_output`` (how the loss
moves with this operation's output) and must return ``grad_output`` times its local
derivative. A hand-written backward that returns the local derivative alone (PyTorch issue
#995) still trains, without an error: the layers before it receive a "gradient" whose sign
and size come from the activations, not from the loss, and drift in a fixed direction.
No statistic of the run tells this from a hard problem.

One exact test does. A correct backward is linear in ``grad_output``, so the gradients of
``2 x loss`` are exactly twice those of ``loss`` (multiplying by 2 is exact in binary
floating point: only the rounding of a non-deterministic kernel can differ). A backward that
ignores ``grad_output`` gives the same gradients whatever the loss's scale. The probe runs
once, on a private float64 copy of the model with the RNGs forked and replayed before each
pass (dropout draws the same mask twice) and restored afterwards: two forward and backward
passes on the step's batch. The user's model, optimizer, modes, dtype and RNG are only read.

Most torch models on the CPU take a cheaper way to the same answer (``_in_place``): the
user's model itself, in its own dtype and modes, on the first ``IN_PLACE_SAMPLES`` samples,
ONE forward pass and two backward passes through the same graph (so dropout's mask is the
same by construction), with everything a forward pass may change put back afterwards (the
dependency screen's ``kept_as_is``) and the gradients taken with ``autograd.grad`` (no
``.grad`` is written). Doubling is exact in float32 as in float64; a CPU backward is
deterministic, so the two agree exactly there too. Copying the model to float64 and running
two full-batch passes cost a 150-step MLP run 3.5% of its instructions; this way costs a
fraction of that. Anything the in-place way cannot run falls back to the private copy.

The scaled quantity is the loss when it is known (``watch(loss_fn=...)`` and the step's
targets); otherwise a fixed random weighting of the model's output, ``sum(output * v)``: the
model's own backward must be linear in whatever cotangent reaches it, so that test is as
sharp for every operation inside the model (only a broken backward inside the loss function
itself is then out of reach).
"""
import numpy as np

from ...findings import Finding
from .runner import _float_tensors
from .screen import NOT_IN_PLACE, SCREENED_DTYPES, kept_as_is

RELATIVE_TOLERANCE = 1e-6
"""[design] How far the gradients of 2 x loss may stray from twice those of loss, relative
to the tensor's largest gradient. In float64 the two agree exactly on a deterministic
backward and to ~1e-15 on a non-deterministic one (atomic sums on a GPU); a backward that
ignores grad_output misses by 0.5 (it returns the same gradient twice)."""
NEGLIGIBLE = 1e-12
"""[design] A tensor whose gradients stay below this fraction of the largest gradient of the
model in both passes is "both about zero": its rounding is not evidence."""
SAME_LOSS = 1e-12
"""[design] Relative difference of the two passes' losses beyond which the model did not
compute the same thing twice (it keeps state between calls): the comparison means nothing."""
SEED = 0
COTANGENT_SEED = 1234
IN_PLACE_SAMPLES = 8
"""[design] Samples the in-place way runs on. A backward is linear in ``grad_output`` on any
batch, so a few samples show a broken one as the whole batch does (8, not 2: enough that
a ReLU or a mask rarely leaves a parameter with no gradient at all); the cost of the passes
grows with the samples."""


def probe_loss_scale(adapter, inputs, targets=None, loss_fn=None):
    """``(findings, how)``: GRADIENT_IGNORES_LOSS for the parameters whose gradient does not
    double when the loss doubles, and a line saying what was scaled, or why nothing was.

    ``adapter``: the user's model (only read); ``inputs``: the step's inputs as the model
    takes them; ``targets`` and ``loss_fn``: the step's loss, when known."""
    if _in_place_applies(adapter, inputs, targets):
        try:
            return _in_place(adapter, inputs, targets, loss_fn)
        except Exception:                # whatever the model refuses here: the private copy
            pass
    work = adapter.private_copy(np.float64)
    failure = None
    for what, objective in _objectives(work, loss_fn, targets):
        try:
            passes = _two_passes(adapter, work, inputs, targets, objective)
        except Exception as error:       # a loss or model the copy cannot run: try the next
            failure = f"{type(error).__name__}: {error}"
            continue
        break
    else:
        return [], f"not checked: the private copy could not run ({failure})"
    (loss1, grads1), (loss2, grads2) = passes
    if not (np.isfinite(loss1) and np.isfinite(loss2)):
        return [], "not checked: the loss is not finite"
    if abs(loss2 - loss1) > SAME_LOSS * max(abs(loss1), 1e-300):
        return [], ("not checked: the same batch gave two losses (the model keeps state "
                    "between calls)")
    return _verdict(work, grads1, grads2, what)


def _objectives(work, loss_fn, targets):
    """What is doubled, in the order tried: the step's loss when known, else (or when it
    cannot run) a fixed random weighting of the model's output."""
    objectives = []
    if loss_fn is not None and targets is not None:
        objectives.append(("the loss", loss_fn))
    objectives.append(("a fixed random weighting of the model's output",
                       _weighted_output(work)))
    return objectives


def _verdict(work, grads1, grads2, what):
    """``(findings, how)`` from the gradients of the objective and of twice it."""
    broken = _not_doubled(grads1, grads2)
    if not broken:
        return [], f"checked with {what}: every gradient doubles"
    return [_finding(work, broken, what)], f"checked with {what}: {len(broken)} tensor(s) fail"


def _in_place_applies(adapter, inputs, targets):
    """A torch model whose trainable parameters are float32/float64 on the CPU (deterministic
    kernels: the doubling is exact), one input tensor of two samples or more, targets that
    are one tensor with as many rows (or none seen), and no module that cannot run in place
    (``screen.NOT_IN_PLACE``)."""
    if adapter.framework != "torch" or not adapter.is_tensor(inputs) or inputs.ndim < 1 or \
            inputs.shape[0] < 2:
        return False
    if targets is not None and not (adapter.is_tensor(targets) and targets.ndim >= 1 and
                                    targets.shape[0] == inputs.shape[0]):
        return False
    params = [p for _, p in adapter.named_parameters() if p.requires_grad]
    if not params or any(p.device.type != "cpu" or str(p.dtype) not in SCREENED_DTYPES
                         for p in params):
        return False
    return not any(type(m).__name__ in NOT_IN_PLACE for m in adapter.model.modules())


def _in_place(adapter, inputs, targets, loss_fn):
    """``probe_loss_scale`` on the user's model itself (see the module docstring): one forward
    pass on the first samples, the gradients of the loss and of twice the loss from it."""
    import torch
    rows = min(IN_PLACE_SAMPLES, int(inputs.shape[0]))
    x = inputs[:rows].detach()
    y = None if targets is None else targets[:rows].detach()
    named = [(n, p) for n, p in adapter.named_parameters() if p.requires_grad]
    failure = None
    for what, objective in _objectives(adapter, loss_fn, y):
        try:
            with kept_as_is(adapter.model, eval_mode=False), adapter.forked_rng(SEED), \
                    torch.enable_grad():
                loss = adapter._scalar_loss(objective(adapter.call_model(adapter.model, x), y))
                params = [p for _, p in named]
                once = torch.autograd.grad(loss, params, retain_graph=True, allow_unused=True)
                twice = torch.autograd.grad(loss * 2.0, params, allow_unused=True)
        except Exception as error:       # a loss the sub-batch cannot take: try the next
            failure = error
            continue
        break
    else:
        raise failure
    if not bool(torch.isfinite(loss.detach())):
        return [], "not checked: the loss is not finite"
    grads1, grads2 = ({name: (np.zeros(tuple(p.shape)) if g is None else g.detach().numpy())
                       for (name, p), g in zip(named, grads)} for grads in (once, twice))
    return _verdict(adapter, grads1, grads2, what)


def _two_passes(adapter, work, inputs, targets, objective):
    """[(loss, {parameter name: gradient})] for ``objective`` and for 2 x ``objective``, each
    pass starting from the same forked RNG state (the user's is put back afterwards)."""
    passes = []
    with adapter.forked_rng(SEED) as replay, work.default_dtype(np.float64):
        for scale in (1.0, 2.0):
            replay()
            loss, grads, _ = work.loss_and_grads(inputs, targets, objective, grad_scale=scale)
            passes.append((loss, grads))
    return passes


def _weighted_output(work):
    """A stand-in loss, ``sum(output * v)`` with a fixed random ``v`` for the model's first
    float output: linear, so every operation of the model sees a cotangent, and random, so
    that no sum cancels (a softmax's outputs sum to 1: their plain sum has no gradient)."""
    def weighted(output, _targets):
        tensors = _float_tensors(work, output)
        if not tensors:
            raise ValueError(f"the model returned no float tensor ({type(output).__name__})")
        main = tensors[0]
        shape = tuple(int(n) for n in main.shape)
        v = np.random.default_rng(COTANGENT_SEED).standard_normal(shape)
        return (main * work.from_numpy(v, like=main)).sum()
    return weighted


def _not_doubled(grads1, grads2):
    """{parameter name: relative error} for the tensors whose gradient of 2 x loss is not
    twice their gradient of loss (both about zero is no evidence).

    All tensors are compared in one pass: their values laid end to end, each tensor's
    largest values read per segment (``reduceat``), not a dozen NumPy calls per tensor."""
    names = [name for name, g in grads1.items() if np.size(g)]
    if not names:
        return {}
    g1 = np.concatenate([np.asarray(grads1[n], dtype=np.float64).ravel() for n in names])
    g2 = np.concatenate([np.asarray(grads2[n], dtype=np.float64).ravel() if n in grads2
                         else np.zeros(np.size(grads1[n])) for n in names])
    starts = np.cumsum([0] + [np.size(grads1[n]) for n in names[:-1]])
    finite = np.logical_and.reduceat(np.isfinite(g1) & np.isfinite(g2), starts)
    with np.errstate(invalid="ignore", over="ignore"):
        top1 = np.maximum.reduceat(np.abs(g1), starts)     # each tensor's largest gradient
        top2 = np.maximum.reduceat(np.abs(g2), starts)
        error = np.maximum.reduceat(np.abs(g2 - 2 * g1), starts)
    size = np.maximum(2 * top1, top2)
    largest = float(np.max(np.fmax(top1, top2), initial=0.0))  # NaN tensors aside
    floor = max(largest * NEGLIGIBLE, 1e-300)
    broken = {}
    for name, ok, n_size, n_error in zip(names, finite, size, error):
        if not ok or n_size <= floor:
            continue
        relative = float(n_error) / float(n_size)
        if relative > RELATIVE_TOLERANCE:
            broken[name] = relative
    return broken


def _owner(name):
    """The module holding parameter ``name`` ("0.weight" -> "0"; a top-level one -> "")."""
    return name.rpartition(".")[0]


def _finding(work, broken, what):
    modules = dict(work.named_modules())
    owners = list(dict.fromkeys(_owner(name) for name in broken))
    described = [f"'{m}' ({work.module_type(modules[m])})" if m in modules else f"'{m}'"
                 for m in owners]
    hooked = [f"'{m}': {', '.join(found)}" for m in owners if m in modules
              for found in [work.backward_hooks(modules[m])] if found]
    names = list(broken)
    worst = max(broken.values())
    shown = ", ".join(names[:6]) + (f" and {len(names) - 6} more" if len(names) > 6 else "")
    message = (f"The gradients of {shown} (in {', '.join(described[:4])}) are not twice as "
               f"large when the loss is doubled (relative error {worst:.2g}; scaled: {what}): "
               "a backward between these parameters and the loss returns a gradient that does "
               "not depend on the gradient it was given (a custom autograd.Function whose "
               "backward leaves grad_output out). These layers move in a direction set by "
               "their activations, not by the loss.")
    if hooked:
        message += (" The model's own gradient hooks sit on the way (" + "; ".join(hooked[:3]) +
                    "): a hook that clips or normalises gradients does this on purpose - "
                    "check them first.")
    return Finding(
        code="GRADIENT_IGNORES_LOSS", severity="warning" if hooked else "error",
        where=owners[0] if owners[0] else names[0], message=message,
        evidence={"parameters": names, "modules": owners, "relative_error": worst,
                  "errors": {n: float(e) for n, e in broken.items()}, "scaled": what},
        fix="In every hand-written backward, return grad_output times the local derivative "
            "(return grad_output * derivative), never the derivative alone; the broken "
            "operation lies after these parameters, before the first layer whose gradients "
            "double (nndebug.gradcheck(model, x, y, loss_fn) checks each tensor, "
            "nndebug.locate names the module).")
