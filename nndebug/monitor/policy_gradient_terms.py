"""Policy-gradient terms of the loss: a log-probability of the taken actions times a weight
(``run.observed.policy_gradient_terms``).

REINFORCE, actor-critic and PPO losses are all ``-(log_prob(actions) * weight).mean()``:
the log-probability of the sampled action (a log-softmax row, one entry picked per row by
``gather`` or indexing) times an advantage or return that the optimiser must treat as a
constant. Its value is a surrogate whose gradient is the policy gradient; its level says
nothing about progress (it wanders as the advantages are renormalised every batch). Two
public bugs live in exactly this product, and both are visible in the graph:

* the weight carries a gradient into the model (``reward - value`` with the critic's value
  not detached, astariul/encode-attend-navigate-pytorch#2): the policy term trains the
  critic too;
* the log-probabilities are taken of actions of another shape, ``(B, 1)`` against a
  distribution of batch ``B`` (LucasAlegre/morl-baselines#88): torch broadcasts to a
  ``(B, B)`` table of every action under every state, more picked entries than the
  distribution has rows.

A recorded step's graph is first looked at after its backward, by node types only (the
saved tensors are freed then): a loss with no product of a picked log-probability never
costs more. Once one is seen, on the next ``STEPS_MEASURED`` recorded steps a torch
function mode (pushed when the step begins, under the modes other observers push in the
forward) sees
``loss.backward()`` called (the first ``BACKWARDS_PER_STEP`` calls of the step), and the
loss's graph is walked then, before the backward frees its saved tensors, for products
(``MulBackward0``) one of whose operands leads, through shape operations, a pick
(``gather``/indexing), ``log``, ``exp`` or a subtraction of a constant (PPO's ratio), to a
normalised log-probability: ``log_softmax``, ``logits - logsumexp`` (``Categorical``),
``log`` of a ``softmax``, or a Gaussian's log-density (``Normal.log_prob``, real-bug batch 124;
stacked over an episode's steps, summed over the action's dimensions). For each such product one row lands,
``(step, weight, signs, picked, rows)``:

* weight: "constant" (no graph), "model" (its graph reaches the watched model's parameters
  and not the log-probability's own logits), "other" (reaches only other parameters);
  a weight built from the same logits (an entropy ``p * log p``) is no policy weight and
  leaves no row;
* signs: "both" when the weight holds positive and negative values (advantages, or returns
  standardised); for a weight of one value (one episode a step), "positive" or "negative";
  "one" otherwise;
* picked: log-probability entries picked; rows: rows of the distribution they were picked
  from.

A product of a distribution's probabilities and its own log-probabilities (``p * log p``,
an entropy term, ``Categorical.entropy()``) gets a hook instead: when the backward reaches
it, the sign of the loss's gradient on it says whether descent raises the entropy or
lowers it, one row ``(step, "maximised" or "minimised")`` in ``run.observed.entropy_terms``
(an entropy bonus added to the loss with the wrong sign, google-deepmind/open_spiel#962).

A log-probability normalised from a softmax's output (``Categorical(logits=probs)``: the
probabilities read as logits, real-bug batch 124) adds ``(step,)`` to
``run.observed.softmax_read_as_logits`` (DOUBLE_SOFTMAX).

Cost: nothing after the measured steps; on them a function mode on every torch call of the
step (a type check each), one walk of the loss graph (bounded) and a sign check of each
weight and entropy gradient found (a host read each, on a handful of steps only).
"""
import functools

from .function_modes import BackwardWatch
from .graph_walks import saved_axis

STEPS_MEASURED = 6        # [design] recorded steps read (as loss_reductions.py): the loop's
                          # habit, not one step
WALK_LIMIT = 4096         # [design] graph nodes walked per loss, and per weight; beyond it
                          # the product is left unread
STRUCTURE_SCANS = 3       # [design] first recorded steps whose graph is looked at for a
                          # policy-gradient product; a loss without one never gets the mode
BACKWARDS_PER_STEP = 4    # [design] backward calls read per step: an actor's, a critic's,
                          # a discriminator's; more is a loop of micro-batches (alike)
PATH_DEPTH = 16           # [design] operations between a product and its log-probability

SHAPE_OPS = {"SqueezeBackward0", "SqueezeBackward1", "SqueezeBackward2", "SqueezeBackward3",
             "UnsqueezeBackward0", "ViewBackward0", "UnsafeViewBackward0",
             "ReshapeAliasBackward0", "CloneBackward0", "ExpandBackward0", "SliceBackward0",
             "SelectBackward0", "PermuteBackward0", "TBackward0", "TransposeBackward0",
             "ToCopyBackward0", "NegBackward0", "ExpBackward0", "SubBackward0",
             "ClampBackward1", "LogBackward0",
             # (real-bug batch 124) log-probabilities stacked over an episode's steps, and a
             # Gaussian's summed over the action's dimensions
             "StackBackward0", "CatBackward0", "SumBackward0", "SumBackward1",
             # (real-bug batch 318) a tour's log-probability summed step by step,
             # log_prob = log_prob + logp[rows, pick], as a pointer network decodes
             "AddBackward0"}
PICKS = {"GatherBackward0", "IndexBackward0"}
DISTRIBUTION_OPS = {"SoftmaxBackward0", "LogSoftmaxBackward0", "LogsumexpBackward0"}


class PolicyGradientTerms(BackwardWatch):
    """Looks at the loss graph's shape after the first recorded steps (``on_loss``), then,
    once a policy-gradient product was seen, a backward watch
    (``function_modes.BackwardWatch``) reads the products on STEPS_MEASURED recorded steps."""
    steps = STEPS_MEASURED

    def __init__(self, adapter, observed, parameters, optimizer, on_error):
        self._watched = {id(p) for p in parameters}
        groups = getattr(optimizer, "param_groups", None) or []
        self._watched |= {id(p) for group in groups for p in group.get("params", ())}
        super().__init__(adapter.framework == "torch" and bool(self._watched), on_error)
        self.observed = observed
        self._backwards, self.scans = 0, 0

    def on_loss(self, step, loss):
        """A recorded step ended (its backward done): on the first STRUCTURE_SCANS, look at
        the graph's shape only (the saved tensors are freed by now) for a product of a
        picked log-probability. Only a loss that has one gets the mode on later steps."""
        if not self.enabled or self.wanted or self.scans >= STRUCTURE_SCANS or \
                getattr(loss, "grad_fn", None) is None:
            return
        self.scans += 1
        try:
            self.wanted = any(_picked_log_probability_operand(node)
                              for node in _products(loss.grad_fn))
        except Exception as error:        # a graph we cannot read: no mode, ever
            self.enabled = False
            self.on_error(error)

    def begin_step(self, step):
        self._backwards = 0

    def on_backward(self, step, loss):
        if self._backwards >= BACKWARDS_PER_STEP:
            return
        self._backwards += 1               # a critic's backward may come first: read a few
        try:
            for node in _products(loss.grad_fn):
                row = self._read(node, step)
                if row is not None:
                    self.observed.policy_gradient_terms.append((step,) + row)
                elif _entropy_product(node):
                    node.register_hook(functools.partial(self._on_entropy_gradient, step))
        except Exception as error:        # a graph we cannot read costs this step
            self.on_error(error)

    def _on_entropy_gradient(self, step, grad_inputs, grad_outputs):
        """The backward reached ``p * log p``: the sign of the loss's gradient on it says
        whether descent raises the entropy (positive: the term is -entropy, a bonus) or
        lowers it (negative: +entropy was added to the loss)."""
        try:
            grad = grad_outputs[0]
            if grad is not None:
                total = float(grad.sum())
                if total != 0.0:
                    verdict = "maximised" if total > 0 else "minimised"
                    self.observed.entropy_terms.append((int(step), verdict))
        except Exception as error:        # never break the user's backward
            self.on_error(error)

    def _read(self, product, step):
        children = [child for child, _ in product.next_functions]
        if len(children) != 2:
            return None
        for side in (0, 1):
            found = log_probability(children[side])
            if found is None:
                continue
            source, picked, rows = found
            if _softmax_below(source) and \
                    len(self.observed.softmax_read_as_logits) < STEPS_MEASURED:
                self.observed.softmax_read_as_logits.append((int(step),))
            weight_node = children[1 - side]
            weight = getattr(product, "_saved_other" if side == 0 else "_saved_self", None)
            kind = self._weight_kind(weight_node, source)
            if kind is None:
                return None                # p * log p of the same logits: an entropy
            # (real-bug batch 294) the log-prob side as multiplied: a (B, 1) column of picked
            # log-probabilities minus the old (B,) ones broadcasts to (B, B) after the pick
            multiplied = _entries(product, "_saved_self" if side == 0 else "_saved_other",
                                  children[side])
            return kind, _signs(weight), int(picked), int(rows), multiplied or int(picked)
        return None

    def _weight_kind(self, node, source):
        if node is None:
            return "constant"
        own = {source} | {child for child, _ in source.next_functions if child is not None}
        seen, stack, reaches_model = {node}, [node], False
        while stack:
            if len(seen) > WALK_LIMIT:
                return "other"
            current = stack.pop()
            if current in own:
                return None
            variable = getattr(current, "variable", None)
            if variable is not None:
                reaches_model = reaches_model or id(variable) in self._watched
                continue
            for child, _ in current.next_functions:
                if child is not None and child not in seen:
                    seen.add(child)
                    stack.append(child)
        return "model" if reaches_model else "other"



def _entries(product, operand, node):
    """Entries of one operand of ``product`` as multiplied: the product saves it only when the
    other operand needs a gradient (an advantage does not), so else read it where the node
    that made it saved it (``exp``'s result, ``clamp``'s input); None when neither kept it."""
    for holder, name in ((product, operand), (node, "_saved_result"), (node, "_saved_self")):
        try:
            value = getattr(holder, name, None)
        except RuntimeError:              # freed by a backward already run
            value = None
        if value is not None and hasattr(value, "numel"):
            return int(value.numel())
    return None


def _products(root):
    """Every tensor-by-tensor product (``MulBackward0``) in the graph under ``root``."""
    seen, stack, found = {root}, [root], []
    while stack and len(seen) <= WALK_LIMIT:
        node = stack.pop()
        if type(node).__name__ == "MulBackward0":
            found.append(node)
        for child, _ in node.next_functions:
            if child is not None and child not in seen:
                seen.add(child)
                stack.append(child)
    return found


def _entropy_product(product):
    """``p * log p`` of one distribution: both operands lead, through SHAPE_OPS and
    softmax/log-softmax, to one node (the logits, or their normalisation), and one of them
    through a log-probability."""
    children = [child for child, _ in product.next_functions]
    if len(children) != 2 or None in children:
        return False
    reached = [_near_logits(child) for child in children]
    if reached[0] is None or reached[1] is None:
        return False
    (first, first_logged), (second, second_logged) = reached
    return bool(first & second) and (first_logged or second_logged)


def _near_logits(node):
    """(nodes met walking down through SHAPE_OPS and (log-)softmax, whether a
    log-probability was among them); None when a pick (gather) is met: a picked
    log-probability is a policy term, not an entropy."""
    seen, stack, logged = {node}, [(node, 0)], False
    while stack:
        current, depth = stack.pop()
        name = type(current).__name__
        if name in PICKS:
            return None
        if name in ("LogSoftmaxBackward0", "LogBackward0", "LogsumexpBackward0"):
            logged = True
        if depth >= PATH_DEPTH or (name not in SHAPE_OPS and name not in DISTRIBUTION_OPS):
            continue
        for child, _ in current.next_functions:
            if child is not None and child not in seen:
                seen.add(child)
                stack.append((child, depth + 1))
    return seen, logged


def _picked_log_probability_operand(product):
    """Whether an operand of ``product`` leads to a picked log-probability, by the graph's
    node types alone (readable after the backward)."""
    return any(log_probability(child, structure_only=True) is not None
               for child, _ in product.next_functions)


def log_probability(node, depth=0, picked=None, logged=False, structure_only=False):
    """(source node, entries picked, rows of the distribution) when ``node`` leads to a
    picked normalised log-probability through SHAPE_OPS; None otherwise."""
    if node is None or depth > PATH_DEPTH:
        return None
    name = type(node).__name__
    if picked is None and name == "SubBackward0":
        entries = _gaussian_log_density(node, structure_only)
        if entries is not None:
            return node, entries, entries
    if picked is not None:
        rows = _rows(node, name, logged, structure_only)
        if rows is not None:
            return node, picked, rows
    if name in PICKS:
        if picked is not None:
            return None
        picked = 0 if structure_only else _picked(node, name)
        if picked is None:
            return None
    elif name not in SHAPE_OPS:
        return None
    logged = logged or name == "LogBackward0"
    for child, _ in node.next_functions:
        found = log_probability(child, depth + 1, picked, logged, structure_only)
        if found is not None:
            return found
    return None


def _softmax_below(source):
    """(real-bug batch 124) Whether a normalised log-probability was taken of
    probabilities: ``Categorical(logits=softmax(x))``, whose ``logits - logsumexp`` (or a
    ``log_softmax``) reaches a softmax's output through shape operations alone, no ``log`` on
    the way. Probabilities in [0, 1] read as logits give a distribution squashed towards
    uniform, and the policy samples nearly at random whatever it learned."""
    name = type(source).__name__
    if name == "LogSoftmaxBackward0":
        starts = [child for child, _ in source.next_functions]
    elif name == "SubBackward0":
        starts = [child for child, _ in source.next_functions
                  if type(child).__name__ != "LogsumexpBackward0"]
    else:
        return False
    seen, stack = set(), [(child, 0) for child in starts if child is not None]
    while stack:
        node, depth = stack.pop()
        kind = type(node).__name__
        if kind == "SoftmaxBackward0":
            return True
        if depth >= PATH_DEPTH or node in seen or kind not in SHAPE_OPS or \
                kind in ("LogBackward0", "ExpBackward0", "SubBackward0", "NegBackward0"):
            continue
        seen.add(node)
        stack.extend((child, depth + 1) for child, _ in node.next_functions
                     if child is not None)
    return False


def _gaussian_log_density(node, structure_only=False, depth=0):
    """(real-bug batch 124) Entries of a Gaussian's log-density when ``node`` is torch's
    ``Normal.log_prob``: ``-(value - loc) ** 2 / (2 * var) - log(scale) - log(sqrt(2 pi))``,
    a subtraction whose left side holds the division of a negated square and whose right
    side is a ``log`` (0 with ``structure_only``); None otherwise. A continuous policy's
    surrogate is built from it as a categorical one is from a picked log-softmax."""
    children = [child for child, _ in node.next_functions if child is not None]
    names = [type(child).__name__ for child in children]
    if "DivBackward0" in names and "LogBackward0" in names:
        division = children[names.index("DivBackward0")]
        top = [child for child, _ in division.next_functions if child is not None]
        if not top or type(top[0]).__name__ != "NegBackward0":
            return None
        square = [child for child, _ in top[0].next_functions if child is not None]
        if not square or type(square[0]).__name__ != "PowBackward0":
            return None
        if structure_only:
            return 0
        saved = getattr(square[0], "_saved_self", None)
        return int(saved.numel()) if saved is not None else None
    if depth < 1 and "SubBackward0" in names:       # the constant log(sqrt(2 pi)) on top
        return _gaussian_log_density(children[names.index("SubBackward0")], structure_only,
                                     depth + 1)
    return None


def _rows(node, name, logged, structure_only=False):
    """Rows of the distribution when ``node`` is a normalised log-probability (or a softmax
    under a ``log``); None otherwise (0 for any, with ``structure_only``)."""
    if structure_only:
        is_source = name == "LogSoftmaxBackward0" or (name == "SoftmaxBackward0" and logged) or \
            (name == "SubBackward0" and any(type(c).__name__ == "LogsumexpBackward0"
                                            for c, _ in node.next_functions))
        return 0 if is_source else None
    if name == "LogSoftmaxBackward0" or (name == "SoftmaxBackward0" and logged):
        # (real-bug batch 294) dim=-1 is saved as 2**64 - 1: read it as an axis first
        result = node._saved_result
        return result.numel() // max(1, result.shape[saved_axis(node._saved_dim, result.dim())])
    if name == "SubBackward0":
        for child, _ in node.next_functions:
            if type(child).__name__ == "LogsumexpBackward0":
                return child._saved_result.numel()
    return None


def _picked(node, name):
    if name == "GatherBackward0":
        return node._saved_index.numel()
    indices = [i for i in (node._saved_indices or []) if i is not None]
    if not indices:
        return None
    size = 1
    for dim in _broadcast([tuple(i.shape) for i in indices]):
        size *= dim
    return size


def _broadcast(shapes):
    length = max(len(s) for s in shapes)
    out = [1] * length
    for shape in shapes:
        for k, dim in enumerate((1,) * (length - len(shape)) + shape):
            out[k] = max(out[k], dim)
    return out


def _signs(weight):
    if weight is None or not hasattr(weight, "numel") or weight.numel() < 1:
        return "one"
    if weight.numel() == 1:
        # one episode a step (an architecture-search controller's REINFORCE, real-bug batch
        # 200): its advantage's sign, so that signs changing between steps can be seen
        value = float(weight.reshape(-1)[0])
        return "positive" if value > 0 else "negative" if value < 0 else "one"
    positive = bool((weight > 0).any())
    negative = bool((weight < 0).any())
    return "both" if positive and negative else "one"
