"""Log-probabilities pooled into one number before they are weighed
(``run.observed.pooled_log_probs``; LOG_PROBS_POOLED_BEFORE_WEIGHTING,
``nndebug.rules.pooled_log_probs``).

A policy gradient weighs EACH action's log-probability by that action's own return or
advantage: ``-(log_probs * returns).sum()``. Averaged (or summed) first,
``-(log_probs.mean() * returns).sum()``, the episode's log-probabilities become one number
and every action is credited with the sum of every step's return: a good action taken
early and a bad one taken late are pushed alike, and the agent learns only what is common
to whole episodes (Farama-Foundation/Gymnasium#1336). The same holds for a batch of
sequences whose log-probabilities are summed over the whole batch before being multiplied
by each sequence's reward.

In torch's graph that is a product (``MulBackward0``) one of whose operands is a WHOLE
reduction (``MeanBackward0``/``SumBackward0``, or a mean/sum over every axis) of two or
more entries that lead, through stacking and shape operations, to picked log-probabilities
of a distribution (the test ``policy_gradient_terms.py`` uses), and whose result holds
more than one entry (read from the reduction above it): one pooled log-probability times a
vector of weights. ``log_probs.sum() * episode_return`` (a scalar weight: REINFORCE without
rewards to go) is no such product and is left alone.

Node types and saved sizes outlive the backward, so the nodes come from the shared walk of
the loss's graph (``graph_walks.LossGraph``) on the first ``WALK_STEPS`` recorded steps:
no per-step cost after them, no host transfer.
"""
from .graph_walks import FirstStepsReader, saved_axis
from .policy_gradient_terms import log_probability

WALK_STEPS = 3            # [design] recorded steps read: the loss's graph has the same shape
                          # on every step of an ordinary loop
WHOLE_REDUCTIONS = {"MeanBackward0", "SumBackward0", "MeanBackward1", "SumBackward1"}
JOINS = {"StackBackward0", "CatBackward0"}
# nodes between the product and the reduction that shows its size: a sign, a constant
# factor or divisor, a shape change that keeps the entries
PASS_UP = {"NegBackward0", "MulBackward0", "DivBackward0", "ViewBackward0",
           "UnsqueezeBackward0", "SqueezeBackward0", "SqueezeBackward1"}
LOOK_UP = 4               # [design] pass-through nodes followed up from a product at most


class PooledLogProbs(FirstStepsReader):
    """A reader of ``graph_walks.LossGraph``."""
    steps = WALK_STEPS

    def keep(self, step, nodes):
        self.observed.pooled_log_probs.extend(
            (step, pooled, weighted) for pooled, weighted in find_pooled_log_probs(nodes))


def find_pooled_log_probs(nodes):
    """[(log-probabilities pooled, entries of the product)] for each product of a whole
    reduction of picked log-probabilities and a weight of several entries (module doc)."""
    parents = {}
    for node in nodes:
        for child, _ in getattr(node, "next_functions", ()):
            if child is not None:
                parents.setdefault(child, []).append(node)
    found = []
    for node in nodes:
        if type(node).__name__ != "MulBackward0":
            continue
        for child, _ in node.next_functions:
            pooled = _pooled_log_probabilities(child)
            if pooled is None:
                continue
            weighted = _entries_above(node, parents)
            if weighted is not None and weighted > 1:
                found.append((pooled, weighted))
                break
    return found


def _pooled_log_probabilities(node):
    """Entries reduced when ``node`` is a whole reduction of two or more picked
    log-probabilities; None otherwise."""
    if node is None or type(node).__name__ not in WHOLE_REDUCTIONS:
        return None
    shape = [int(n) for n in getattr(node, "_saved_self_sym_sizes", ())]
    entries = 1
    for n in shape:
        entries *= n
    if entries < 2 or not _reduces_every_axis(node, shape):
        return None
    below = [child for child, _ in node.next_functions if child is not None]
    if not below:
        return None
    operands = [c for c, _ in below[0].next_functions if c is not None] \
        if type(below[0]).__name__ in JOINS else below
    if operands and all(log_probability(c, structure_only=True) is not None for c in operands):
        return entries
    return None


def _reduces_every_axis(node, shape):
    dims = getattr(node, "_saved_dim", None)
    if dims is None:                       # SumBackward0 / MeanBackward0: everything
        return True
    axes = {saved_axis(d, len(shape)) for d in dims}
    return axes == set(range(len(shape)))


def _entries_above(product, parents):
    """Entries of ``product``'s result, read from the first reduction above it (through
    PASS_UP nodes); None when none is found."""
    node = product
    for _ in range(LOOK_UP + 1):
        above = parents.get(node, [])
        if len(above) != 1:
            return None
        node = above[0]
        name = type(node).__name__
        if name in WHOLE_REDUCTIONS:
            entries = 1
            for n in getattr(node, "_saved_self_sym_sizes", ()):
                entries *= int(n)
            return entries
        if name not in PASS_UP:
            return None
    return None
