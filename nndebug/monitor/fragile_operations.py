"""Operations whose NaN comes later, read for ``nndebug.rules.nonfinite_origins`` when a run's
first NaN was born on a step no record watched (real-bug batch 92: NaN losses whose source
the reports' answers found).

The origin watch (``nonfinite_origins.py``) measures the loss's calls on the first recorded
steps and on the schedule's closer looks. A NaN that waits for a particular batch (every
advantage equal) or for the model to grow confident (a probability rounding to exactly 1)
is born later, on a step that is rarely recorded; its update turns the weights into NaN and
nothing is born after it. What can be read on the watched steps is the structure that will
make it, as ``unguarded_logs.py`` reads a log of a probability. Three more such traps:

- a division by a bare spread: ``x / t.std()``, ``x / t.var()``, ``x / torch.sqrt(t.var())``
  with nothing added to or clamped on the divisor. The spread is 0 when every value is
  equal (a batch of equal rewards, a constant feature column), and 0 / 0 is NaN in the
  forward. Read on the calls (the tensors need not require a gradient: advantages are made
  from rewards), by identity: the divisor is the very tensor a ``std``/``var`` call returned
  on this step. ``std + eps`` or ``std.clamp_min(eps)`` is another tensor.
- a fractional power of a probability or its complement: ``(1 - p) ** 0.5``, ``p ** gamma``
  (0 < gamma < 1), ``sqrt(1 - p)``, p a softmax or sigmoid (or ``exp`` of a log_softmax /
  logsigmoid). The forward is finite when p rounds to exactly 1 (or 0), but x ** gamma has
  an infinite derivative at 0 and 0 x inf is NaN in the backward (a focal loss with a gamma
  below 1). A clamp whose bound holds in the dtype, or an ``+ eps``, is no such chain.
- a log of a sum of exps: ``log(sum(w * exp(a)))`` (a mixture likelihood): once every
  ``exp`` of a row underflows (``a`` below about -104 in float32), the sum is 0 and the log
  -inf; a sum just above 0 makes the log's derivative 1 / sum overflow, and 0 x inf is NaN
  in the exp's backward. An ``exp`` of a difference (a max subtracted by hand) is taken as
  guarded; ``torch.logsumexp`` is no such chain.

- a spread over the batch axis, ``torch.std(x, dim=0)`` or ``x.var(0)`` with the default
  (unbiased) correction, of an activation inside the model (a GAN discriminator's minibatch
  standard deviation, a per-batch standardisation): the spread of a single value divides
  by n - 1 = 0, so a batch of one sample - the last, partial batch of an epoch whose size
  leaves one over - makes it NaN in the forward (PGGAN-PyTorch#1, real-bug batch 267).
  Read on the forward's graph: a std/var node whose reduced dimensions include the first
  (or, on a 1-D tensor, all of them), whose correction is not 0 and whose input is itself
  computed (not a parameter). ``correction=0`` is no such spread.

- a division by a bare count: ``loss.sum() / mask.sum()``, ``x / (y == c).sum()``, the sum
  of a tensor of 0s and 1s (events, positives, kept tokens) with nothing added to or
  clamped on it. A batch that holds none of them makes it 0, and 0 / 0 is NaN in the
  forward (a Cox loss over events on a small, heavily censored batch: pycox#124). Read by
  identity as the spread is: the divisor is the very tensor a ``sum`` of such a tensor
  returned on this step (its values are checked, on the device and read once, only when
  a division by it is met). ``mask.sum().clamp(min=1)`` is another tensor.

- an inverse cosine or sine of a tanh: ``acos(tanh(x))``, ``asin(tanh(x))`` (a Chebyshev
  KAN's ``cos(n * acos(tanh(x)))``, real-bug batch 340: ChebyKAN#11). tanh rounds to
  exactly +-1 in float32 once its input passes about 9; acos is finite there, but its derivative -1 / sqrt(1 - t^2) is infinite, and 0 x inf is
  NaN in the backward. Read on the graph: the acos/asin node's argument reaches the tanh
  through views (or a product by exactly 1.0, a shrink factor left at 1) only; a product
  by less (``tanh(x) * 0.99``, the report's fix) or a clamp whose bounds hold strictly
  inside (-1, 1) in the dtype is no such chain.

- the same traps on a cosine: ``acos(cos)`` and ``sqrt(1 - cos ** 2)``, cos a product of
  unit vectors (``F.linear(F.normalize(x), F.normalize(W))``, ``F.cosine_similarity``), as
  every angular-margin head (ArcFace, CosFace) computes its angle or its sine (real-bug batch
  350: arcface-pytorch#68, ``sqrt((1 - cos ** 2).clamp(0, 1))``). A cosine rounds to exactly
  +-1 once a feature lines up with its class weight; the sqrt's derivative is then
  infinite and the clamp's zero gradient makes it NaN. Read on the graph: a matrix product
  (or the sum of an element-wise product) whose two inputs are each divided by their norm,
  reached through views and clamps that do not hold strictly inside (-1, 1);
  ``cos.clamp(-1 + 1e-7, 1 - 1e-7)`` (the report's fix) is no such chain.

Cost: on the origin watch's steps only (the first three recorded ones and the closer looks),
an identity test per risky call and a walk of at most ``CHAIN_LIMIT`` graph nodes per power
or log; no device work, no host transfer. Kept in ``observed.fragile_operations``:
``[(step, "forward" or "backward", description, source)]``, at most ``KEPT``, one per
description.
"""
from .unguarded_logs import PASS_THROUGH, _bound_holds, _clamp_bound, _kind

KEPT = 4             # [design] distinct fragile operations kept: the rule names the first
CHAIN_LIMIT = 12     # [design] nodes walked below one power or log (as unguarded_logs.py)
SUM_DEPTH = 3        # [design] nodes between a log's sum and the exps it adds (a product by
                     # the mixture weights, a view): past this the sum is of something else
SPREADS = frozenset({"std", "var"})
COUNTS = frozenset({"sum"})   # a sum of 0s and 1s is a count (read for divisions only)
DIVISIONS = frozenset({"div", "divide", "true_divide", "__truediv__"})
POWERS = frozenset({"pow", "__pow__", "sqrt"})
LOGS = frozenset({"log", "log2", "log10"})
LOG_PROBABILITIES = {"logsoftmax": "softmax", "logsigmoid": "sigmoid"}
PROBABILITIES = frozenset({"softmax", "sigmoid"})
PRODUCTS = frozenset({"mul", "div"})
INVERSE_TRIG = {"acos": "acos", "arccos": "acos", "asin": "asin", "arcsin": "asin"}
SQUASHED_TO_ONE = frozenset({"tanh"})   # reaches exactly +-1 with a gradient through it
                                        # (hardtanh's backward masks its flat parts with a
                                        # where: inf x 0 never forms, measured)
SPREADS_KEPT = 16    # [design] std/var results remembered per step (a loss makes one or two)


class FragileOperations:
    """Per watched step: the std/var results seen, for the division test; the notes go to
    ``observed.fragile_operations``."""

    def __init__(self, observed):
        self.observed = observed
        self.step = None
        self._spreads = []      # [(tensor, "std" or "var" or "sqrt(var)")] of this step

    def arm(self, step):
        self.step, self._spreads = step, []

    def release(self):
        """The watched step is over (the optimizer steps): the std/var results go."""
        self._spreads = []

    def on_call(self, name, args, result, source):
        """A risky call of the watched step returned ``result``; ``source()`` gives its
        call site (asked only when something is kept)."""
        if len(self.observed.fragile_operations) >= KEPT or not args:
            return
        if name in SPREADS and len(self._spreads) < SPREADS_KEPT:
            self._spreads.append((result, name))
        elif name in COUNTS and len(self._spreads) < SPREADS_KEPT and len(args) == 1:
            self._spreads.append((result, ("count", args[0])))    # a bare t.sum() only
        elif name == "sqrt":
            made = self._spread_of(args[0])
            if made == "var" and len(self._spreads) < SPREADS_KEPT:
                self._spreads.append((result, "sqrt(var)"))
        if name in DIVISIONS and len(args) >= 2:
            made = self._spread_of(args[1])
            if made is not None:
                self._keep("forward", f"x / {made}", source)
        grad_fn = getattr(result, "grad_fn", None)
        if grad_fn is not None:
            self.on_node(name, grad_fn, getattr(result, "dtype", None), source)

    def on_node(self, name, node, dtype, source):
        """A power or log met on the watched step (a call, or a node of the forward's
        graph): kept when its argument is a fragile chain."""
        if len(self.observed.fragile_operations) >= KEPT or node is None:
            return
        try:
            if name in POWERS:
                described = fractional_power_of_probability(node, dtype)
                phase = "backward"
            elif name in LOGS:
                described = log_of_summed_exps(node)
                phase = "forward"
            elif name in SPREADS:
                described = spread_over_batch(node, name)   # real-bug batch 267
                phase = "forward"
            elif name in INVERSE_TRIG:
                described = inverse_trig_of_squashed(node, INVERSE_TRIG[name], dtype)
                phase = "backward"                          # real-bug batch 340
            else:
                return
        except Exception:      # a node kind we did not foresee: nothing to say
            return
        if described is not None:
            self._keep(phase, described, source)

    def _spread_of(self, tensor):
        for kept, made in self._spreads:
            if kept is tensor:
                return made if isinstance(made, str) else _count_of(made[1])
        return None

    def _keep(self, phase, described, source):
        kept = self.observed.fragile_operations
        if len(kept) < KEPT and all(d != described for _, _, d, _ in kept):
            where = source() if callable(source) else source
            kept.append((int(self.step if self.step is not None else -1), phase, described,
                         str(where or "")))


def _count_of(summed):
    """"sum(0/1 tensor)" when ``summed`` (what a bare ``sum()`` added up) holds only 0s and
    1s, a count that is 0 on a batch without any; else None. Booleans are counts by type;
    other tensors are checked on the device and read once (a division by a sum is rare)."""
    import torch
    if not isinstance(summed, torch.Tensor) or summed.requires_grad or summed.numel() < 2:
        return None
    if summed.dtype == torch.bool:
        return "sum(0/1 tensor)"
    with torch._C.DisableTorchFunction():
        binary = bool(((summed == 0) | (summed == 1)).all())
    return "sum(0/1 tensor)" if binary else None


def spread_over_batch(node, name):
    """"std over the batch axis" (or var) when ``node``, a std/var backward node, takes an
    unbiased spread over the first axis of a computed tensor (an activation, not a
    parameter): NaN on a batch of one sample. Else None."""
    correction = getattr(node, "_saved_correction", None)
    correction = 1 if correction is None else correction       # None: the default, n - 1
    if not isinstance(correction, (int, float)) or correction == 0:
        return None
    try:
        source = node._saved_self
    except (AttributeError, RuntimeError):                      # freed: nothing to read
        return None
    if source is None or source.grad_fn is None or source.dim() == 0:
        return None                                             # a parameter or a number
    dims = getattr(node, "_saved_dim", None)
    if dims is None:                                            # every axis: the batch's
        reduces_batch = source.dim() == 1                       # only for a 1-D tensor
    else:
        dims = (dims,) if isinstance(dims, int) else tuple(dims)
        reduces_batch = any(d % source.dim() == 0 for d in dims)
    return f"{name} over the batch axis" if reduces_batch else None


def _parent(node, index=0):
    parents = getattr(node, "next_functions", ()) or ()
    return parents[index][0] if len(parents) > index else None


def _exponent(node):
    """The scalar exponent of a pow node (0.5 for sqrt), or None."""
    kind = _kind(node)
    if kind == "sqrt":
        return 0.5
    if kind != "pow":
        return None
    try:
        value = node._saved_exponent
    except (AttributeError, RuntimeError):
        return None
    return float(value) if isinstance(value, (int, float)) else None


def fractional_power_of_probability(node, dtype):
    """"(1 - softmax) ** 0.5" when ``node`` (a pow or sqrt backward node) raises a probability
    or its complement, unguarded, to a power in (0, 1); else None."""
    exponent = _exponent(node)
    if exponent is None or not 0.0 < exponent < 1.0:
        return None
    current, need, complement = _parent(node), "low", False   # the base must stay above 0
    for _ in range(CHAIN_LIMIT):
        if current is None:
            return None
        kind = _kind(current)
        inner = kind if kind in PROBABILITIES else _exp_of_log_probability(current)
        if inner is not None:
            base = f"(1 - {inner})" if complement else inner
            return f"{base} ** {exponent:g}"
        if complement and _squares(current) and _cosine_below(_parent(current), dtype):
            return f"(1 - cosine ** 2) ** {exponent:g}"         # real-bug batch 350
        if kind == "rsub":
            need, complement = ("high" if need == "low" else "low"), not complement
        elif kind in ("clamp", "clampmin", "clampmax", "clip"):
            if dtype is None or _bound_holds(_clamp_bound(current, need), need, dtype):
                return None
        elif kind not in PASS_THROUGH:
            return None
        current = _parent(current)
    return None


def inverse_trig_of_squashed(node, name, dtype):
    """"acos(tanh)" when ``node`` (an acos or asin backward node) takes its argument from a
    tanh through views (and products by exactly 1) only, with no clamp that keeps it strictly inside
    (-1, 1) in ``dtype``; else None."""
    current = _parent(node)
    for _ in range(CHAIN_LIMIT):
        if current is None:
            return None
        kind = _kind(current)
        if kind in SQUASHED_TO_ONE:
            return f"{name}({kind})"
        if _is_cosine(current):
            return f"{name}(cosine)"                            # real-bug batch 350
        if kind in ("clamp", "clampmin", "clampmax", "clip"):
            if dtype is None or _strictly_inside_one(current, dtype):
                return None
        elif kind == "mul":
            if not _times_one(current):     # x 0.99 keeps it inside; x 1.0 does not
                return None
        elif kind not in PASS_THROUGH:
            return None
        current = _parent(current)
    return None


def _squares(node):
    """Whether ``node`` squares its input: ``x ** 2``, ``torch.pow(x, 2)`` or ``x * x``."""
    if _kind(node) == "pow":
        return _exponent(node) == 2.0
    return _kind(node) == "mul" and _parent(node, 0) is not None and \
        _parent(node, 0) is _parent(node, 1)


def _cosine_below(node, dtype):
    """Whether ``node`` is a cosine reached through views and clamps that let it touch +-1
    (see ``_is_cosine``): a clamp strictly inside (-1, 1) in ``dtype`` guards it."""
    current = node
    for _ in range(CHAIN_LIMIT):
        if current is None:
            return False
        if _is_cosine(current):
            return True
        kind = _kind(current)
        if kind in ("clamp", "clampmin", "clampmax", "clip"):
            if dtype is None or _strictly_inside_one(current, dtype):
                return False
        elif kind not in PASS_THROUGH:
            return False
        current = _parent(current)
    return False


COSINE_PRODUCTS = frozenset({"mm", "bmm", "mv", "dot", "matmul"})
NORMS = frozenset({"linalgvectornorm", "norm"})


def _is_cosine(node):
    """Whether ``node`` computes cosines: a matrix product of two unit-vector tensors
    (``F.linear(F.normalize(x), F.normalize(W))``), or the sum of their element-wise product
    (``F.cosine_similarity``). A cosine reaches exactly +-1 in floating point."""
    kind = _kind(node)
    if kind == "sum":
        node, kind = _parent(node), _kind(_parent(node)) if _parent(node) else None
        if kind != "mul":
            return False
    elif kind not in COSINE_PRODUCTS:
        return False
    return all(_unit_vectors(_parent(node, i)) for i in (0, 1))


def _unit_vectors(node):
    """Whether ``node`` (through views) divides a tensor by its norm (``F.normalize``)."""
    for _ in range(CHAIN_LIMIT):
        if node is None:
            return False
        if _kind(node) == "div":
            return _divisor_is_norm(_parent(node, 1))
        if _kind(node) not in PASS_THROUGH:
            return False
        node = _parent(node)
    return False


def _divisor_is_norm(node):
    """Whether a divisor is a norm, through views and a floor on it (``clamp_min(eps)``)."""
    for _ in range(CHAIN_LIMIT):
        if node is None:
            return False
        kind = _kind(node)
        if kind in NORMS:
            return True
        if kind not in PASS_THROUGH and kind not in ("clampmin", "clamp", "add"):
            return False
        node = _parent(node)
    return False


def _times_one(node):
    """Whether a mul node multiplies by a plain number of magnitude exactly 1 (a shrink
    factor left at 1.0): the product reaches +-1 wherever its input does."""
    import torch
    try:
        other = node._saved_other
    except (AttributeError, RuntimeError):
        return False
    if not isinstance(other, torch.Tensor) or other.numel() != 1 or \
            other.device.type != "cpu" or other.requires_grad:
        return False
    return abs(float(other)) == 1.0


def _strictly_inside_one(node, dtype):
    """Whether a clamp node's bounds keep its output strictly inside (-1, 1) in ``dtype``
    (a bound we cannot read counts as keeping it: not ours to judge)."""
    import torch
    low, high = _clamp_bound(node, "low"), _clamp_bound(node, "high")
    try:
        low = None if low is None else float(torch.tensor(float(low), dtype=dtype))
        high = None if high is None else float(torch.tensor(float(high), dtype=dtype))
    except (TypeError, ValueError, RuntimeError):
        return True
    return low is not None and high is not None and low > -1.0 and high < 1.0


def _exp_of_log_probability(node):
    """"softmax" / "sigmoid" when ``node`` is an exp of a log_softmax / logsigmoid (through
    indexing and views), else None."""
    if _kind(node) != "exp":
        return None
    current = _parent(node)
    for _ in range(CHAIN_LIMIT):
        if current is None:
            return None
        kind = _kind(current)
        if kind in LOG_PROBABILITIES:
            return LOG_PROBABILITIES[kind]
        if kind not in PASS_THROUGH:
            return None
        current = _parent(current)
    return None


def log_of_summed_exps(node):
    """"log(sum(exp))" when ``node`` (a log backward node) takes the log of a sum or mean
    whose terms are exps (times weights, through views) of no difference; else None."""
    current = _parent(node)
    for _ in range(CHAIN_LIMIT):
        if current is None:
            return None
        kind = _kind(current)
        if kind in ("sum", "mean"):
            break
        if kind not in PASS_THROUGH:
            return None
        current = _parent(current)
    else:
        return None
    reduction = _kind(current)
    return f"log({reduction}(exp))" if _reaches_plain_exp(_parent(current), SUM_DEPTH) \
        else None


def _reaches_plain_exp(node, depth):
    """Whether an exp of no difference is found below ``node`` through products and views,
    within ``depth`` nodes."""
    if node is None or depth < 0:
        return False
    kind = _kind(node)
    if kind == "exp":
        return _kind(_parent(node)) != "sub" if _parent(node) is not None else True
    if kind not in PRODUCTS and kind not in PASS_THROUGH:
        return False
    parents = [p for p, _ in (getattr(node, "next_functions", ()) or ()) if p is not None]
    return any(_reaches_plain_exp(p, depth - 1) for p in parents)
