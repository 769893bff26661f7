"""The constant factors an attention's logits are scaled by, read from the autograd graph
(torch; real-bug batch 79, transformer blocks written by users).

Scaled dot-product attention divides q.k by sqrt(head_dim) once. Users scale by hand as
well - the queries divided before ``F.scaled_dot_product_attention`` (which scales again
unless told ``scale=``), the scores divided twice, a query projection pre-scaled - and the
logits end up head_dim times smaller than they should: the attention rows stay close to
uniform. Nothing in the weights or the loss curve says so; the graph does.

On the first ``SCALE_OBSERVED_STEPS`` recorded steps, while ``attention_capture``'s mode is
on anyway (no mode, no hook of its own), each softmax over the last axis and each
``scaled_dot_product_attention`` call hands its inputs here, first call per site and step:

- a softmax: walk back from its input through shape-only nodes, masks (``masked_fill``, a
  constant added) and multiplications / divisions by a Python number to the matmul that
  made the scores (``BmmBackward0``/``MmBackward0``), the head size read from the matmul's
  saved query operand (its shape only); then from each operand of the matmul the same way
  down to whatever made it (a linear layer, a split);
- a kernel call: the same walk from the query and the key, plus the kernel's own factor
  (``scale=`` or 1/sqrt(head_dim)).

Each factor is a 0-dim CPU tensor autograd saved for a Python number (reading it is no
device work); a factor that is a tensor on the device, or one with a gradient (a learned
temperature), ends the walk. What is kept per site: the head size and the list of
factors, in ``observed.attention_scales`` (rows: site, step, head_dim, factors, kernel).
Python only, a few dozen graph nodes per call. A softmax traced to its matmul also hands
its weights to ``uniform_attention.uniform_rows`` (batch 101: how many rows are exactly
uniform; one reduction and two numbers read back, on those first steps only), kept in
``observed.uniform_attention`` (rows: site, step, rows seeing 2+ keys, uniform ones).
"""

SCALE_OBSERVED_STEPS = 2      # [design] recorded steps whose attention calls are read
SCALE_WALK_NODES = 24         # [design] graph nodes walked per operand at most
_SHAPE_ONLY = {"ViewBackward0", "UnsafeViewBackward0", "TransposeBackward0",
               "PermuteBackward0", "ReshapeAliasBackward0", "CloneBackward0",
               "ExpandBackward0", "SplitBackward0", "SplitWithSizesBackward0",
               "UnbindBackward0", "SelectBackward0", "SliceBackward0", "ContiguousBackward0",
               "SqueezeBackward0", "SqueezeBackward1", "UnsqueezeBackward0",
               "AliasBackward0", "ToCopyBackward0"}
_MASKS = {"MaskedFillBackward0", "MaskedFillBackward1"}
_MATMULS = {"BmmBackward0", "MmBackward0"}


def _constant_factor(node):
    """The Python number a Mul/Div node scales by (as a multiplier), or None."""
    name = node.name()
    if name not in ("MulBackward0", "MulBackward1", "DivBackward0", "DivBackward1"):
        return None
    nexts = [f for f, _ in node.next_functions]
    if len(nexts) == 2 and nexts[1] is not None:
        return None                       # both sides carry a gradient: not a constant
    other = getattr(node, "_saved_other", None)
    if other is None or not hasattr(other, "dim"):
        value = other
    elif other.dim() != 0 or other.device.type != "cpu":
        return None                       # a tensor on the device: never read (no sync)
    else:
        value = float(other)
    if not isinstance(value, (int, float)) or value == 0:
        return None
    return 1.0 / value if name.startswith("Div") else float(value)


def _walk(node, factors, stop_at_matmul=False):
    """Follow the first input through shape-only, mask and constant-factor nodes, adding
    the factors found; returns the node the walk stopped at."""
    for _ in range(SCALE_WALK_NODES):
        if node is None:
            return None
        name = node.name()
        if stop_at_matmul and name in _MATMULS:
            return node
        factor = _constant_factor(node)
        if factor is not None:
            factors.append(factor)
        elif name in _SHAPE_ONLY or name in _MASKS:
            pass
        elif name == "AddBackward0" and stop_at_matmul and \
                sum(f is not None for f, _ in node.next_functions) == 1:
            pass                          # an additive mask (a constant) on the scores
        else:
            return node
        nexts = [f for f, _ in node.next_functions]
        if not nexts:
            return None
        node = nexts[0]
    return None


class AttentionScales:
    def __init__(self, observed, current_step=lambda: None, on_error=lambda error: None):
        self.observed, self.current_step, self.on_error = observed, current_step, on_error
        self.steps_seen = 0
        self.seen_this_step = set()

    def arm(self):
        self.steps_seen += 1
        self.seen_this_step = set()

    @property
    def wanted(self):
        return self.steps_seen <= SCALE_OBSERVED_STEPS

    def _keep(self, site, head_dim, factors, kernel):
        step = self.current_step()
        self.observed.attention_scales.append(
            (site, None if step is None else int(step), int(head_dim),
             [float(f) for f in factors], bool(kernel)))

    def _keep_uniformity(self, site, weights):
        from .uniform_attention import uniform_rows   # batch 101 (torch only: imported here)
        checked, uniform = uniform_rows(weights)
        step = self.current_step()
        self.observed.uniform_attention.append(
            (site, None if step is None else int(step), checked, uniform))

    def on_softmax(self, site, result):
        """A softmax over the last axis (attention weights): its scores' factors."""
        if not self.wanted or site in self.seen_this_step:
            return
        self.seen_this_step.add(site)
        try:
            softmax = result.grad_fn
            if softmax is None or not softmax.next_functions:
                return
            factors = []
            matmul = _walk(softmax.next_functions[0][0], factors, stop_at_matmul=True)
            if matmul is None or matmul.name() not in _MATMULS:
                return
            query = getattr(matmul, "_saved_self", None)
            if query is None or query.dim() < 2 or query.shape[-1] < 2:
                return
            for operand, _ in matmul.next_functions[:2]:
                _walk(operand, factors)
            self._keep(site, query.shape[-1], factors, kernel=False)
            self._keep_uniformity(site, result)     # batch 101: weights swamped to uniform
        except Exception as error:        # a measurement never breaks the user's step
            self.on_error(error)

    def on_kernel(self, site, args, kwargs):
        """``scaled_dot_product_attention(q, k, v, ..., scale=None)``."""
        if not self.wanted or site in self.seen_this_step:
            return
        self.seen_this_step.add(site)
        try:
            query = kwargs.get("query", args[0] if args else None)
            key = kwargs.get("key", args[1] if len(args) > 1 else None)
            if query is None or key is None or query.dim() < 2 or query.shape[-1] < 2:
                return
            scale = kwargs.get("scale", args[6] if len(args) > 6 else None)
            head_dim = query.shape[-1]
            factors = [float(scale) if scale is not None else head_dim ** -0.5]
            for operand in (query, key):
                if getattr(operand, "grad_fn", None) is not None:
                    _walk(operand.grad_fn, factors)
            self._keep(site, head_dim, factors, kernel=True)
        except Exception as error:
            self.on_error(error)
