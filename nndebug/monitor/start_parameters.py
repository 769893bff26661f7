"""Parameters that hold NaN, Inf or absurdly large values before training starts
(UNINITIALISED_PARAMETERS, ``nndebug.rules.uninitialised_parameters``).

``nn.Parameter(torch.Tensor(out, in))`` or ``torch.empty(...)`` without an initialiser
afterwards (a ``reset_parameters`` never called, an ``init`` loop that skips a layer written
by hand) keeps whatever the allocator's memory held: often zeros, sometimes leftovers of
freed tensors, sometimes bit patterns that read as NaN or as 1e30. No initialisation scheme
and no trained model gives a trainable weight such values; a parameter that starts with them
was never initialised.

How it is read: once, when ``watch`` starts (before the first forward), every floating-point
parameter's largest magnitude is reduced on its device (NaN and Inf carry through the
maximum) and the lot moved to the host together; only a parameter whose maximum is
non-finite or above ``HUGE_START_VALUE`` is looked at again (its non-finite count, its
largest finite value). Cost: one reduction over the parameters' memory and one host
transfer per device, once; nothing during training.

Kept in ``run.observed.start_parameter_values`` as ``[(name, shape, trainable, non-finite
elements, largest finite |value|)]`` for the parameters with a non-finite element or a
finite value above ``HUGE_START_VALUE`` (every other parameter: no row).

The same reduction's minimum and maximum also tell the weight matrices (2+ dimensions) that
started with every value of one sign, not all equal (``observed.one_signed_start_parameters``,
real-bug batch 247): ``nn.init.uniform_(w)`` without bounds draws from [0, 1), TensorFlow's
``random_uniform`` default too; every standard initialiser is centred on zero
(``rules/init_scale.py`` reads them).
"""
import math

import numpy as np

HUGE_START_VALUE = 1e15    # [design] |w| no initialiser and no training reaches in float32
                           # weights (default inits stay below 1, a weight trained to 1e4 is
                           # already extreme); random bits read as float32 pass it in about a
                           # third of the cases, NaN/Inf patterns aside
START_PARAMETER_ROWS = 16  # [design] parameters kept at most
OUTPUT_ROWS_KEPT = 4096   # [design] (real-bug batch 156) rows of the last weight matrix whose
                          # norms are kept: a classifier's head (a language model's 50k-row
                          # vocabulary is left out)
ONE_SIGNED_ROWS = 256      # [design] trainable weight matrices started one-signed kept at most
ZERO_START_ROWS = 256      # [design] names of the trainable parameters that started all zero
                           # kept at most (real-bug batch 82: LoRA's B, an adapter's
                           # up-projection; their first steps' relative sizes mean nothing)


def read_start_values(adapter, observed, on_error):
    """Fill ``observed.start_parameter_values`` (once, at watch start)."""
    try:
        named = [(name, p) for name, p in adapter.named_parameters()]
    except Exception as error:        # a model without named parameters
        on_error(error)
        return
    try:
        zeros = []                    # (real-bug batch 82) names of all-zero parameters
        one_signed = []               # (real-bug batch 247) matrices started of one sign
        if adapter.framework == "torch":
            rows = _torch_rows(named, zeros, one_signed)
        else:
            rows = _numpy_rows(adapter, named, zeros, one_signed)
        trainable = {str(name): p for name, p in named if adapter.requires_grad(p)}
        observed.one_signed_start_parameters.extend(
            [(name, [int(n) for n in trainable[name].shape]) for name in one_signed
             if name in trainable][:ONE_SIGNED_ROWS])
        observed.zero_start_parameters.extend(
            [(name, [int(n) for n in trainable[name].shape]) for name in zeros
             if name in trainable][:ZERO_START_ROWS])
        _keep_output_rows(adapter, observed, [(name, p) for name, p in named
                                              if str(name) in trainable])
        for name, p, bad, largest in rows[:START_PARAMETER_ROWS]:
            observed.start_parameter_values.append(
                (str(name), [int(n) for n in p.shape], adapter.requires_grad(p), int(bad),
                 float(largest)))
    except Exception as error:        # never break the user's watch()
        on_error(error)


def _keep_output_rows(adapter, observed, trainable):
    """(real-bug batch 156) The norm of each row of the last trainable weight matrix (the
    output layer of most classifiers), as watch starts: in class-incremental training the
    rows of the classes learned before are trained weights while the new classes' rows
    are fresh, which TARGET_IDS_OFFSET needs to tell the old classes from unused ones."""
    matrices = [(name, p) for name, p in trainable if len(p.shape) == 2]
    if not matrices or not 2 <= matrices[-1][1].shape[0] <= OUTPUT_ROWS_KEPT:
        return
    name, p = matrices[-1]
    if adapter.framework == "torch":
        import torch
        if p.device.type == "meta":
            return                       # no values yet (a model built on the meta device)
        with torch.no_grad():            # reduced where the weight lives, rows only moved
            norms = torch.linalg.vector_norm(p.detach().float(), dim=1).cpu().tolist()
    else:
        norms = np.linalg.norm(np.asarray(adapter.to_numpy(p), dtype=float), axis=1).tolist()
    observed.output_row_norms.append((str(name), norms))


def _one_signed(shape, low, high):
    """A weight matrix (2+ dimensions) whose values all have one sign and are not all equal
    (all equal is SYMMETRIC_INIT's or a zero start's)."""
    return len(shape) >= 2 and low < high and (low >= 0 or high <= 0)


def _torch_rows(named, zeros, one_signed):
    import torch
    kept = [(name, p) for name, p in named if p.is_floating_point() and p.numel() > 0
            and p.device.type != "meta"]
    if not kept:
        return []
    peaks = {}                               # device -> [(index, [min, max])]: NaN and Inf
    with torch.no_grad():                    # propagate through min/max, so one reduction
        for i, (_, p) in enumerate(kept):    # a parameter tells the usual case (all fine)
            low, high = torch.aminmax(p.detach())   # (fastest; no |p| copy made)
            peaks.setdefault(p.device, []).append((i, torch.stack([low, high]).float()))
        bounds = [(0.0, 0.0)] * len(kept)
        for pairs in peaks.values():         # one host transfer per device
            for (i, _), pair in zip(pairs, torch.stack([v for _, v in pairs]).cpu().tolist()):
                bounds[i] = tuple(pair)
        rows = []
        for (name, p), (low, high) in zip(kept, bounds):
            value = max(-low, high) if math.isfinite(low) and math.isfinite(high) else \
                float("nan")                 # NaN and Inf: looked at below
            if value == 0.0:
                zeros.append(str(name))
            elif math.isfinite(value) and _one_signed(tuple(p.shape), low, high):
                one_signed.append(str(name))
            if math.isfinite(value) and value <= HUGE_START_VALUE:
                continue
            finite = torch.isfinite(p)           # the odd few only: count and largest finite
            bad = int((~finite).sum())
            largest = float(p.detach()[finite].abs().max()) if bad < p.numel() else 0.0
            rows.append((name, p, bad, largest))
    return rows


def _numpy_rows(adapter, named, zeros, one_signed):
    rows = []
    for name, p in named:
        array = np.asarray(adapter.to_numpy(p))
        if array.size == 0 or array.dtype.kind != "f":
            continue
        finite = np.isfinite(array)
        bad = int(array.size - finite.sum())
        largest = float(np.abs(array[finite]).max()) if finite.any() else 0.0
        if bad == 0 and largest == 0.0:
            zeros.append(str(name))
        elif bad == 0 and _one_signed(array.shape, float(array.min()), float(array.max())):
            one_signed.append(str(name))
        if bad > 0 or (math.isfinite(largest) and largest > HUGE_START_VALUE):
            rows.append((name, p, bad, largest))
    return rows
