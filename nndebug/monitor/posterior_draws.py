"""How a VAE's reparameterised draw ``z = mu + eps * std`` is built, read in the forward's
graph while its saved tensors are fresh (``run.observed.posterior_draws``).

``reparameterisations.py`` reads the draws whose noise looks standard normal and asks what
the loss does with their scale. Three public bugs live in the draw itself:

- the noise is not N(0, 1): ``torch.rand_like`` (uniform on [0, 1)) where ``randn_like``
  was meant (dferendo/RecommendationSystem#3), or an ``epsilon_std = 0.01`` left in the
  sampling (keras-team/keras#4211). The KL term charges for N(mu, std^2) while the decoder
  sees other draws, so the loss is no longer the variational bound;
- the mean and the log variance come from one output: ``fc_mean(h), fc_mean(h)``
  (giannifranchi/LP_BNN#3). The posterior's log variance equals its mean in every unit;
- the log variance is bounded below by 0, ``softplus(h)`` (masato-ka/airc-rl-agent#43):
  ``std = exp(0.5 * logvar)`` is never below 1, the prior's, so no code can be more
  certain than the prior.

A candidate draw is a ``MulBackward0`` with one operand outside the graph that looks like a
continuous random draw (many distinct values, not a 0/1 or dropout mask, not a constant)
and one inside it, a positive map (``exp``, ``softplus``, ``sqrt``) of an activation that
is not a parameter (a NoisyNet's sigma is not a per-sample posterior). For each, on the
first ``STEPS_MEASURED`` recorded forwards, the row keeps the noise's mean and std, whether
the mean added to the product (``mu + eps * std``) and the scale come from one output, and
whether the scale is ``exp`` of something made non-negative (and every scale value >= 1).
The loss reader then keeps only the draws reaching the loss whose scale a KL term also
reads (``reparameterisations.scale_used_elsewhere``): the posterior draws of a VAE.

The model's own input is no draw: an affine coupling layer of a normalizing flow computes
``x * exp(s(.)) + t(.)`` on the batch it was called with (RealNVP, Glow), the same shape as
``mu + eps * std`` with a scale its log-determinant also reads. An operand sharing storage
with a tensor the model was called with (the batch or a slice of it) is data, and not a
candidate (a flow's twin drew VAE_NOISE_NOT_STANDARD_NORMAL on its 2-D rings, batch 109).

Cost: on the first ``STEPS_MEASURED`` recorded steps only, one pass over the nodes the
shared walks already collected, plus, for each candidate (a few per model), a mean, a std,
a count of distinct values and a minimum (a host sync each); nothing later.
"""
from .dropout_outputs import storage_address
from .reparameterisations import (CHAIN_LIMIT, POINTWISE, edge_uses, inputs_of,
                                  outside_product, scale_used_elsewhere, scaled_noise)

STEPS_MEASURED = 3           # [design] as reparameterisations.py: the model's structure is
                             # the same on every step, three show it is not one odd batch
MIN_NOISE_VALUES = 16        # [design] as reparameterisations.py: below, too few values to
                             # tell a distribution (a VAE's batch x latent is >= 64)
MIN_DISTINCT_SHARE = 0.5     # [design] a continuous draw has (almost) all values distinct; a
                             # 0/1 mask, a dropout mask or a constant has a handful
NON_NEGATIVE_MAPS = ("SoftplusBackward0", "ReluBackward0", "AbsBackward0",
                     "SigmoidBackward0", "ExpBackward0")   # outputs >= 0 by construction
STD_FLOOR = 1.0              # [convention] the standard normal prior's std: a posterior std
                             # never below it is never narrower than the prior
VALUES_COMPARED = 64         # [design] values of a candidate looked up in the model's inputs
FLOOR_TOLERANCE = 1e-6       # [design] float32 rounding of exp(0) = 1
LAYER_OUTPUTS = ("AddmmBackward0", "LinearBackward0", "MmBackward0", "ConvolutionBackward0")
SPLITS = ("SplitBackward0", "SplitWithSizesBackward0", "SliceBackward0", "UnbindBackward0")
WEIGHT_VIEWS = ("TBackward0", "PermuteBackward0", "TransposeBackward0", "ViewBackward0")


class PosteriorDraws:
    """The shared state of the two readers: ``in_forward`` for ``graph_walks.ForwardGraph``
    and ``in_loss`` for ``graph_walks.LossGraph``."""

    def __init__(self, observed):
        self.observed = observed
        self.draws = []           # (product node, scale edge, noise mean, noise std,
        self.forward_reads = 0    #  one output, floored) of this step's forward
        self.outside = []         # (product node, operand from outside the graph), unread
        self.input_storages = set()   # storages of the model's inputs, this forward
        self.input_tensors = []       # and its float input tensors
        self.forward_step = None  # the step whose forward was read (a loop calling the
                                  # model's parts, not the model, has none: nothing judged)
        self.in_forward = _ForwardReader(self)
        self.in_loss = _LossReader(self)


class _ForwardReader:
    def __init__(self, shared):
        self.shared = shared

    def wants(self, step):
        return self.shared.forward_reads < STEPS_MEASURED

    def note_inputs(self, inputs):
        """The storages of the tensors the model was called with (``ForwardGraph``), and
        the float tensors themselves (their values, ``values_of_inputs``)."""
        self.shared.input_storages = input_storages(inputs)
        self.shared.input_tensors = float_tensors(inputs)

    def read(self, step, nodes):
        self.shared.forward_reads += 1
        self.shared.forward_step = step
        means = mean_operands(nodes)
        inputs, self.shared.input_storages = self.shared.input_storages, set()
        tensors, self.shared.input_tensors = self.shared.input_tensors, []
        self.shared.draws = [draw for draw in (candidate(node, means, inputs, tensors)
                                               for node in nodes) if draw is not None]
        self.shared.outside = outside_operands(nodes)


class _LossReader:
    def __init__(self, shared):
        self.shared = shared

    def wants(self, step):
        return len(self.shared.observed.posterior_draws) < STEPS_MEASURED

    def read(self, step, nodes):
        draws, self.shared.draws = self.shared.draws, []
        outside, self.shared.outside = self.shared.outside, []
        in_loss = set(nodes)
        reaching = [draw for draw in draws if draw[0] in in_loss]
        uses = edge_uses(nodes) if reaching else {}
        posterior = [list(draw[2:]) for draw in reaching if scale_used_elsewhere(draw[1], uses)]
        read_forward, self.shared.forward_step = self.shared.forward_step == step, None
        never_drawn = int(read_forward and not reaching and kl_of_two_heads(nodes) and not any(
            node in in_loss and continuous_draw(operand) is not None
            for node, operand in outside))
        self.shared.observed.posterior_draws.append((step, posterior, never_drawn))


def outside_operands(nodes):
    """(node, tensor) of each product with one operand from outside the graph, of at least
    MIN_NOISE_VALUES values: any noise the loss may read (kept, not measured, until the
    loss shows whether it is needed)."""
    found = []
    for node in nodes:
        tensor = (outside_product(node) or (None, None))[0]
        if tensor is not None and tensor.numel() >= MIN_NOISE_VALUES:
            found.append((node, tensor))
    return found


def mean_operands(nodes):
    """{product node: the other input edge of the ``AddBackward0`` that adds it}: the mean
    of ``mu + eps * std``."""
    means = {}
    for node in nodes:
        if type(node).__name__ != "AddBackward0":
            continue
        inputs = inputs_of(node)
        if len(inputs) == 2:
            means.setdefault(inputs[0][0], inputs[1])
            means.setdefault(inputs[1][0], inputs[0])
    return means


def candidate(node, means, inputs=frozenset(), input_tensors=()):
    """(node, scale edge, noise mean, noise std, one output, floored) when ``node``
    multiplies a continuous random draw (outside the graph) by a positive map of an
    activation; otherwise None. ``inputs``: storages of the model's inputs (not draws);
    ``input_tensors``: the float inputs themselves."""
    found = scaled_noise(node)   # graph structure first: measuring the noise syncs
    if found is None:
        return None
    noise, scale = found
    if inputs and storage_address(noise) in inputs:
        return None              # the batch itself, scaled: a flow's coupling, not a draw
    if values_of_inputs(noise, input_tensors):
        return None              # the batch rearranged (a flow's squeeze), then scaled
    stats = continuous_draw(noise)
    if stats is None:
        return None
    mean = means.get(node)
    return (node, scale, stats[0], stats[1],
            int(mean is not None and one_output(head_edge(mean), head_edge(scale))),
            int(floored(scale)))


def _values_in(inputs):
    """The values among a forward's inputs, one level of lists, tuples and dicts inside
    them opened."""
    for value in inputs:
        yield from value.values() if isinstance(value, dict) else \
            value if isinstance(value, (list, tuple)) else (value,)


def input_storages(inputs):
    """Storages of the tensors among a forward's inputs (``_values_in``)."""
    return {address for address in (storage_address(t) for t in _values_in(inputs)
                                     if hasattr(t, "untyped_storage")) if address}


def float_tensors(inputs):
    """The floating-point tensors among a forward's inputs (``_values_in``)."""
    return [t for t in _values_in(inputs)
            if hasattr(t, "is_floating_point") and t.is_floating_point()]


def values_of_inputs(noise, input_tensors):
    """Whether the first VALUES_COMPARED values of ``noise`` all occur in one of the model's
    float inputs: the batch reshaped, permuted or sliced inside forward has new storage but
    the batch's values. A normalizing flow squeezes its (B, 1, 8, 8) images into (B, 4, 4, 4)
    before its first coupling scales half of them, ``x * exp(s) + t`` (real-bug batch 307's
    RealNVP twin drew VAE_NOISE_NOT_STANDARD_NORMAL). A fresh draw's values are in no batch."""
    import torch
    sample = noise.detach().flatten()[:VALUES_COMPARED]
    return any(data.numel() >= sample.numel() and data.dtype == sample.dtype and
               bool(torch.isin(sample, data.detach().flatten()).all())
               for data in input_tensors)


def continuous_draw(tensor):
    """(mean, std) of a tensor that looks like a continuous random draw; else None."""
    if tensor is None or not tensor.is_floating_point() or tensor.numel() < MIN_NOISE_VALUES:
        return None
    values = tensor.detach().float().flatten()
    if int(values.unique().numel()) < MIN_DISTINCT_SHARE * values.numel():
        return None
    return round(float(values.mean()), 4), round(float(values.std()), 4)


def head_edge(edge):
    """The edge under ``edge``'s one-input pointwise chain: where the value was computed (a
    Linear's output, one part of a split output), or None for a chain too long."""
    for _ in range(CHAIN_LIMIT):
        node = edge[0]
        inputs = inputs_of(node)
        if type(node).__name__ not in POINTWISE + NON_NEGATIVE_MAPS or len(inputs) != 1:
            return edge
        edge = inputs[0]
    return None


def one_output(mean, scale):
    """Whether the mean and the scale are one computed value: the same edge, or the same
    layer applied twice to the same input (``fc(h), fc(h)``: the same kind of node over
    the same inputs, a weight's transpose read as the weight itself)."""
    if mean is None or scale is None:
        return False
    if mean == scale:
        return True
    (mean_node, mean_index), (scale_node, scale_index) = mean, scale
    if type(mean_node).__name__ not in LAYER_OUTPUTS or type(mean_node) is not type(scale_node):
        return False             # a split's two parts are two outputs, as they should be
    mean_inputs = [operand(edge) for edge in inputs_of(mean_node)]
    return mean_index == scale_index and len(mean_inputs) > 1 and \
        mean_inputs == [operand(edge) for edge in inputs_of(scale_node)]


def operand(edge):
    """What an input edge reads: the parameter under a transpose/view (each call of a
    Linear makes its own transpose node of the same weight), else the edge itself."""
    node = edge[0]
    while type(node).__name__ in WEIGHT_VIEWS and len(inputs_of(node)) == 1:
        node = inputs_of(node)[0][0]
    return node if type(node).__name__ == "AccumulateGrad" else edge


def floored(scale):
    """Whether the scale is ``exp`` (or ``sqrt(exp)``) of a value made non-negative on the
    way from its head (``exp(0.5 * softplus(h))``), and every value of it >= STD_FLOOR."""
    node = scale[0]
    saved = getattr(node, "_saved_result", None)
    if saved is None:
        return False
    edge, seen_exp = scale, False
    for _ in range(CHAIN_LIMIT):
        name = type(edge[0]).__name__
        inputs = inputs_of(edge[0])
        if seen_exp and name in NON_NEGATIVE_MAPS:
            return float(saved.detach().min()) >= STD_FLOOR - FLOOR_TOLERANCE
        seen_exp = seen_exp or name == "ExpBackward0"
        if name not in POINTWISE + NON_NEGATIVE_MAPS or len(inputs) != 1:
            return False
        edge = inputs[0]
    return False


def kl_of_two_heads(nodes):
    """Whether the loss holds a Gaussian KL's two reads of sibling outputs of one encoder:
    ``mu ** 2`` (or ``mu * mu``) of one output, and ``exp`` of another (through scalar
    factors only: ``logvar.exp()``, ``exp(2 * log_sigma)``). A Gaussian likelihood's
    ``(y - mu) ** 2 / exp(logvar)`` squares a difference, not an output."""
    squared = [edge for edge in map(squared_input, nodes) if edge is not None]
    if not squared:
        return False
    exponents = [scaled_head(inputs_of(node)[0]) for node in nodes
                 if type(node).__name__ == "ExpBackward0" and len(inputs_of(node)) == 1]
    return any(siblings(mean, scale) for mean in squared for scale in exponents
               if scale is not None)


def squared_input(node):
    """The head output a node squares directly (``x ** 2``, ``x * x``), else None."""
    name, inputs = type(node).__name__, inputs_of(node)
    if name == "PowBackward0" and len(inputs) == 1 and \
            getattr(node, "_saved_exponent", None) == 2:
        edge = inputs[0]
    elif name == "MulBackward0" and len(inputs) == 2 and inputs[0] == inputs[1]:
        edge = inputs[0]
    else:
        return None
    return edge if type(edge[0]).__name__ in SPLITS + LAYER_OUTPUTS else None


def scaled_head(edge):
    """The head output under a chain of scalar factors (one-input ``Mul``/``Div``/``Neg``),
    else None."""
    for _ in range(CHAIN_LIMIT):
        name = type(edge[0]).__name__
        if name in SPLITS + LAYER_OUTPUTS:
            return edge
        inputs = inputs_of(edge[0])
        if name not in ("MulBackward0", "DivBackward0", "NegBackward0") or len(inputs) != 1:
            return None
        edge = inputs[0]
    return None


def siblings(first, second):
    """Two different outputs of one encoder: two parts of one split, or two layers of one
    kind over the same activation (two heads on ``h``)."""
    if first == second:
        return False
    (first_node, _), (second_node, _) = first, second
    if first_node is second_node:
        return type(first_node).__name__ in SPLITS
    if type(first_node).__name__ == "SliceBackward0" == type(second_node).__name__:
        return inputs_of(first_node) == inputs_of(second_node)   # out[:, :k], out[:, k:]
    if type(first_node) is not type(second_node) or \
            type(first_node).__name__ not in LAYER_OUTPUTS:
        return False
    shared = {operand(edge) for edge in inputs_of(first_node)} & \
        {operand(edge) for edge in inputs_of(second_node)}
    return any(isinstance(item, tuple) for item in shared)   # an activation, not a weight
