"""Reparameterised samples in the model's forward, and what the loss does with their scale
(``run.observed.reparameterisations``).

A VAE draws its code as ``z = mu + eps * std`` with ``eps ~ N(0, 1)`` and ``std`` predicted
per sample, usually ``exp(0.5 * logvar)``. Two public bugs live in that line and the KL term
beside it:

- the KL term left out of the loss (facebookresearch/irmae#1): ``std`` then reaches the
  loss only through the noise it scales, and the reconstruction only ever asks for less
  noise, so nothing keeps the posterior near the prior;
- the variance used as the standard deviation, ``eps * exp(logvar)``, while the KL term
  reads ``logvar`` as a log variance, ``exp(logvar)`` (rachtsingh/ibp_vae#3): the noise
  and the KL describe two different posteriors.

In torch's graph the draw is a ``MulBackward0`` with one input outside the graph (the noise,
saved for the backward while the forward's graph is fresh) and one inside it, the scale,
made by a positive map (``exp``, ``softplus``, ``sqrt``) of an activation. The reader finds
those products in the shared walk of the forward's graph (``graph_walks.ForwardGraph``):
the outside operand must look like standard normal noise (mean near 0, std near 1), which a
mask, a dropout mask or a constant does not. Once the step's loss is known the same object,
as a reader of ``graph_walks.LossGraph``, counts how often each tensor of the loss's graph
is used, and for each draw reaching the loss records

- ``unpenalised``: the scale, and the activations it was computed from through pointwise
  steps down to a head's output (a Linear, or its output split into mean and scale), are
  used nowhere else in the loss (no KL, no log-density term reads them);
- ``variance_scaled``: the scale is ``exp(s)`` and the loss applies ``exp`` to that same
  ``s`` a second time, not squared: ``exp(s)`` read as a variance beside ``exp(s)`` drawn
  as a standard deviation (a KL written with ``s`` as a log standard deviation squares it).

A scale that is a parameter (a NoisyNet's sigma, a global log-std) is not a per-sample
posterior and is not counted.

Cost: on the first ``STEPS_MEASURED`` recorded steps only, one pass over the nodes the
shared walks already collected, plus a mean and a std of each candidate noise tensor (one
host sync each); nothing on later steps and no hook of its own.
"""
STEPS_MEASURED = 3           # [design] recorded steps read: the model's structure is the same
                             # on every step, three show it is not one odd batch
MIN_NOISE_VALUES = 16        # [design] a noise operand smaller than this is too small to say
                             # it looks standard normal (a VAE's batch x latent is >= 64)
NOISE_MEAN_LIMIT = 0.25      # [convention] |mean| of a standard normal draw of >= 16 values
                             # is under 0.25 with ~68% odds at 16 and > 99.9% at 256
NOISE_STD_RANGE = (0.7, 1.3)  # [convention] its sample std lies there (> 99% from 32 values);
                              # a 0/1 mask (std <= 0.5) or a dropout mask (mean ~1) does not
POSITIVE_MAPS = ("ExpBackward0", "SoftplusBackward0", "SqrtBackward0")
POINTWISE = POSITIVE_MAPS + ("MulBackward0", "DivBackward0", "AddBackward0", "SubBackward0",
                             "NegBackward0", "ClampBackward1", "ClampMinBackward0",
                             "PowBackward0", "TanhBackward0")   # one-input steps from a head
HEAD_OUTPUTS = ("SplitBackward0", "SplitWithSizesBackward0", "SliceBackward0",
                "SelectBackward0", "UnbindBackward0", "AddmmBackward0", "LinearBackward0")
                             # where a predicted scale starts: a Linear head, or its output
                             # split into mean and scale; a local-reparameterisation layer's
                             # x^2 @ sigma^2 (its KL reads sigma) is none of them
CHAIN_LIMIT = 8              # [design] pointwise steps followed down from the scale


class Reparameterisations:
    """The shared state of the two readers: ``in_forward`` for ``graph_walks.ForwardGraph``
    and ``in_loss`` for ``graph_walks.LossGraph``."""

    def __init__(self, observed):
        self.observed = observed
        self.draws = []           # (product node, scale edge) found in this step's forward
        self.forward_reads = 0    # forwards read (a run that never passes its loss to
                                  # step() must not keep the forward hook on every step)
        self.in_forward = _ForwardReader(self)
        self.in_loss = _LossReader(self)

    def wants(self, step):
        return len(self.observed.reparameterisations) < STEPS_MEASURED


class _ForwardReader:
    def __init__(self, shared):
        self.shared = shared

    def wants(self, step):
        return self.shared.forward_reads < STEPS_MEASURED

    def read(self, step, nodes):
        self.shared.forward_reads += 1
        self.shared.draws = [draw for draw in map(noise_draw, nodes) if draw is not None]


class _LossReader:
    def __init__(self, shared):
        self.shared = shared

    def wants(self, step):
        return self.shared.wants(step)

    def read(self, step, nodes):
        draws, self.shared.draws = self.shared.draws, []
        in_loss = set(nodes)
        reaching = [(product, scale) for product, scale in draws if product in in_loss]
        uses = edge_uses(nodes) if reaching else {}
        self.shared.observed.reparameterisations.append((
            step, len(reaching),
            sum(not scale_used_elsewhere(scale, uses) for _, scale in reaching),
            sum(exp_read_as_variance(scale, nodes, uses) for _, scale in reaching)))


def outside_product(node):
    """``(operand from outside the graph, the other input edge)`` when ``node`` is a
    product of one tensor outside the graph (noise, a mask) and one inside it; else None.
    The outside operand is the tensor autograd saved for the product (None if freed)."""
    if type(node).__name__ != "MulBackward0" or len(node.next_functions) != 2:
        return None
    (first, _), (second, _) = node.next_functions
    if (first is None) == (second is None):
        return None
    inside = node.next_functions[1] if first is None else node.next_functions[0]
    return getattr(node, "_saved_self" if first is None else "_saved_other", None), inside


def scaled_noise(node):
    """``(noise, scale edge)`` when ``node`` multiplies an operand from outside the graph by
    a positive map (exp, softplus, sqrt) of an activation, not of a parameter; else None.
    Only graph structure is read: measuring the noise is the caller's (host syncs)."""
    product = outside_product(node)
    if product is None:
        return None
    scale = product[1]
    if type(scale[0]).__name__ not in POSITIVE_MAPS or scale_is_parameter(scale):
        return None
    return product


def noise_draw(node):
    """``(node, scale edge)`` when ``node`` multiplies standard normal noise (outside the
    graph) by a positive map of an activation; otherwise None."""
    found = scaled_noise(node)
    if found is None or not looks_standard_normal(found[0]):
        return None              # cheap checks first: the noise costs a host sync
    return node, found[1]


def looks_standard_normal(tensor):
    if tensor is None or not tensor.is_floating_point() or tensor.numel() < MIN_NOISE_VALUES:
        return False
    values = tensor.detach().float()
    low, high = NOISE_STD_RANGE
    return abs(float(values.mean())) < NOISE_MEAN_LIMIT and low < float(values.std()) < high


def inputs_of(node):
    return [edge for edge in getattr(node, "next_functions", ()) if edge[0] is not None]


def scale_is_parameter(scale):
    """Whether the pointwise chain under the scale ends in a parameter (a leaf)."""
    edge = scale
    for _ in range(CHAIN_LIMIT):
        node = edge[0]
        if type(node).__name__ == "AccumulateGrad":
            return True
        inputs = inputs_of(node)
        if type(node).__name__ not in POINTWISE or len(inputs) != 1:
            return False
        edge = inputs[0]
    return False


def edge_uses(nodes):
    """How many times each (node, output) of the loss's graph is an input of another."""
    uses = {}
    for node in nodes:
        for edge in inputs_of(node):
            uses[edge] = uses.get(edge, 0) + 1
    return uses


def scale_used_elsewhere(scale, uses):
    """Whether the scale, or an activation it comes from by one-input pointwise steps, is
    also an input of something other than the next step up (a KL term, a log-density)."""
    edge = scale
    for _ in range(CHAIN_LIMIT):
        if uses.get(edge, 0) > 1:
            return True
        node = edge[0]
        inputs = inputs_of(node)
        if type(node).__name__ not in POINTWISE or len(inputs) != 1:
            return type(node).__name__ not in HEAD_OUTPUTS   # not a head's output: a
                                                              # KL may read what is under it
        edge = inputs[0]
    return True                  # a chain too long to follow: say nothing


def exp_read_as_variance(scale, nodes, uses):
    """The scale is ``exp(s)`` and another ``exp`` of the same ``s`` is in the loss, not
    squared (a squared ``exp(s)`` is a variance from a log standard deviation)."""
    node = scale[0]
    if type(node).__name__ != "ExpBackward0" or len(inputs_of(node)) != 1:
        return False
    source = inputs_of(node)[0]
    others = [other for other in nodes if other is not node and
              type(other).__name__ == "ExpBackward0" and inputs_of(other) == [source]]
    return any(not squared((other, 0), nodes) for other in others)


def squared(edge, nodes):
    """Whether some user of ``edge`` squares it (``** 2``, ``x * x``)."""
    for user in nodes:
        inputs = inputs_of(user)
        if edge not in inputs:
            continue
        name = type(user).__name__
        if name == "PowBackward0" and getattr(user, "_saved_exponent", None) == 2:
            return True
        if name == "MulBackward0" and inputs == [edge, edge]:
            return True
    return False
